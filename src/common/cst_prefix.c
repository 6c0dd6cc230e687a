/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/common/cst_prefix.c — the text binary trace frames are compressed
 * against (see cst_prefix.h: part of the file format, never changed).
 * One line of each rare record, with neutral values; the keys and words
 * are what a frame finds here.
 */
#include "cst_prefix.h"

/* Each line is cut into pieces of at most 60 characters; the text is their
 * concatenation, a newline after each line. */
const char cst_prefix[] =
    "{\"recordType\":\"mark\",\"ts\":1800000000000000.000,\"pid\":1000,\"t"
    "id\":1000,\"kind\":\"label\",\"label\":\"step\"}\n"
    "{\"recordType\":\"state\",\"eventId\":\"0x1\",\"eventType\":\"ncclProfi"
    "leProxyOp\",\"late\":true,\"ctx\":1,\"commId\":\"0x0\",\"ts\":180000000"
    "0000000.000,\"name\":\"\",\"id\":0}\n"
    "{\"recordType\":\"process\",\"plugin\":\"cclscope\",\"pluginVersion\":"
    "\"0.1.0\",\"formatVersion\":2,\"hostname\":\"node0\",\"pid\":1000,\"ppi"
    "d\":1000,\"runId\":\"1000\",\"runIdSource\":\"SLURM_JOB_ID\",\"handleT"
    "ag\":\"0x0\",\"host\":\"nccl\",\"ncclVersion\":\"2.30.0\",\"ncclVersionC"
    "ode\":23000,\"clock\":\"counter\",\"mode\":\"trace\",\"eventMask\":1310"
    "71,\"eventMaskNames\":\"group,coll,p2p,proxyop,proxystep,proxyc"
    "trl,kernelch,netplugin,groupapi,collapi,p2papi,kernellaunch,"
    "cecoll,cesync,cebatch,kernelphase,proxydiag\",\"eventMaskSourc"
    "e\":\"default\",\"globalRank\":0,\"globalRankSource\":\"RANK\",\"local"
    "Rank\":0,\"worldSize\":8,\"ringBytes\":4194304,\"directIo\":false,\""
    "compression\":\"zstd\",\"compressionLevel\":1,\"traceFormat\":\"bina"
    "ry\",\"ts\":1800000000000000.000}\n"
    "{\"recordType\":\"thread\",\"pid\":1000,\"tid\":1000,\"name\":\"Profile"
    "r Thread\",\"ts\":1800000000000000.000}\n"
    "{\"recordType\":\"event\",\"type\":\"ProfilerLifecycle\",\"func\":\"Pro"
    "filerInit\",\"ctx\":1,\"commId\":\"0x0\",\"commName\":\"world\",\"rank\":"
    "0,\"nranks\":8,\"nNodes\":1,\"gpuUuid\":\"GPU-00000000-0000-0000-00"
    "00-000000000000\",\"device\":0,\"start\":{\"ts\":1800000000000000.0"
    "00,\"pid\":1000,\"tid\":1000},\"stop\":{\"ts\":1800000000000000.000,"
    "\"pid\":1000,\"tid\":1000},\"duration\":0.000,\"details\":{\"abi\":6,\""
    "eventMask\":131071,\"eventMaskNames\":\"group,coll,p2p,proxyop,p"
    "roxystep,proxyctrl,kernelch,netplugin,groupapi,collapi,p2pap"
    "i,kernellaunch,cecoll,cesync,cebatch,kernelphase,proxydiag\","
    "\"hostname\":\"node0\",\"pid\":1000,\"ncclVersion\":\"2.30.0\",\"host\":"
    "\"nccl\",\"pluginVersion\":\"0.1.0\"}}\n"
    "{\"recordType\":\"event\",\"type\":\"ProfilerLifecycle\",\"func\":\"Pro"
    "filerFinalize\",\"ctx\":1,\"commId\":\"0x0\",\"commName\":\"world\",\"ra"
    "nk\":0,\"nranks\":8,\"nNodes\":1,\"gpuUuid\":\"GPU-00000000-0000-000"
    "0-0000-000000000000\",\"device\":0,\"start\":{\"ts\":18000000000000"
    "00.000,\"pid\":1000,\"tid\":1000},\"stop\":{\"ts\":1800000000000000."
    "000,\"pid\":1000,\"tid\":1000},\"duration\":0.000,\"details\":{\"proc"
    "essCounters\":{\"eventsStarted\":0,\"stopped\":0,\"reclaimed\":0,\"r"
    "eclaimedByReason\":{\"abandoned\":0,\"parent-stopped\":0,\"no-prog"
    "ress\":0,\"finalize\":0},\"inflight\":0,\"droppedStarts\":0,\"droppe"
    "dStates\":0,\"droppedStops\":0,\"nullHandles\":0,\"foreignHandles\""
    ":0,\"sampledOut\":0,\"tooSmall\":0,\"doubleStops\":0,\"unmatchedSto"
    "ps\":0,\"lateStates\":0,\"orphanStates\":0,\"parentsUnknown\":0,\"pa"
    "rentsDropped\":0,\"liveHighWater\":0,\"ringHighWaterUnits\":0,\"ri"
    "ngsAllocatedInCallback\":0,\"threads\":1}}}\n"
    "{\"recordType\":\"processEnd\",\"ts\":1800000000000000.000,\"pid\":1"
    "000,\"reason\":\"finalize\",\"eventsWritten\":0,\"linesLost\":0,\"dis"
    "kWaitMs\":0,\"diskWaits\":0,\"counters\":{\"eventsStarted\":0,\"stop"
    "ped\":0,\"reclaimed\":0,\"reclaimedByReason\":{\"abandoned\":0,\"par"
    "ent-stopped\":0,\"no-progress\":0,\"finalize\":0},\"inflight\":0,\"d"
    "roppedStarts\":0,\"droppedStates\":0,\"droppedStops\":0,\"nullHand"
    "les\":0,\"foreignHandles\":0,\"sampledOut\":0,\"tooSmall\":0,\"doubl"
    "eStops\":0,\"unmatchedStops\":0,\"lateStates\":0,\"orphanStates\":0"
    ",\"parentsUnknown\":0,\"parentsDropped\":0,\"liveHighWater\":0,\"ri"
    "ngHighWaterUnits\":0,\"ringsAllocatedInCallback\":0,\"threads\":1"
    "}}\n";
const size_t cst_prefix_len = sizeof cst_prefix - 1;
