/*
 * src/cli/help.c — the text of `cclscope --help`, `cclscope help CMD` and
 * `cclscope CMD --help`. docs/cli.md says the same at more length.
 */
#include <string.h>

#include "cli.h"

static const char overview[] =
    "usage: cclscope [--quiet] [--progress] COMMAND [OPTIONS] DIR|FILE...\n"
    "\n"
    "Turns the per-process JSONL traces of the cclscope NCCL/RCCL profiler\n"
    "plugin into answers and pictures.\n"
    "\n"
    "commands:\n"
    "  check      validate traces against the format and its invariants\n"
    "  summary    per-collective statistics, stragglers, network, drops\n"
    "  merge      one time-ordered JSONL file from many processes\n"
    "  perfetto   Chrome trace-event JSON for ui.perfetto.dev\n"
    "  otf2       an OTF2 archive for Vampir and other Score-P tools\n"
    "  view       one HTML page with an interactive timeline (offline)\n"
    "  help CMD   the options and output of one command\n"
    "\n"
    "global options (before or after the command):\n"
    "  -q, --quiet     no progress bar and no informational messages\n"
    "      --progress  show the progress bar even when stderr is not a\n"
    "                  terminal (it shows by itself on a terminal for\n"
    "                  inputs of 64 MiB or more)\n"
    "  -h, --help      this text;  -V, --version  the version\n"
    "\n"
    "Inputs: a folder (its *.jsonl files) or trace files.\n"
    "Exit status: 0 ok, 1 findings or failure, 2 usage error.\n"
    "Documentation: docs/cli.md; the trace format: docs/trace-format.md.\n";

static const char help_check[] =
    "usage: cclscope check [--json] [--max-findings N] [--no-notes] "
    "DIR|FILE...\n"
    "\n"
    "Validates traces against docs/trace-format.md and the invariants of the\n"
    "plugin, file by file, streaming:\n"
    "  - every line is a complete JSON object (truncated or invalid lines);\n"
    "  - a file starts with its process record, processEnd is last;\n"
    "  - every event has an id unique in its file, an end (stopped with a\n"
    "    stop and duration = stop - start, reclaimed with a reason and\n"
    "    endTs, or inflight with endTs);\n"
    "  - every parentId names an event of the same file whose type may be\n"
    "    its parent, and the child does not start before the parent;\n"
    "    PXN parents (parentStatus foreign) are looked up in the file of\n"
    "    the process whose handleTag is in the top 16 bits of parentRaw;\n"
    "  - ProfilerInit before the events of each communicator context, and\n"
    "    ProfilerFinalize for each when the process finalized;\n"
    "  - counters: eventsStarted = stopped + reclaimed + inflight +\n"
    "    droppedStarts, and the file holds as many event records as the\n"
    "    counters and eventsWritten say (allowing for linesLost);\n"
    "  - timing and late state records name events of their file.\n"
    "Drops, reclaims, events in flight at exit and files without processEnd\n"
    "(process killed or still running) are reported as notes.\n"
    "\n"
    "output: one finding per line,\n"
    "  FILE:LINE: error[CODE]: MESSAGE (invariant: ...)\n"
    "  FILE:LINE: note[CODE]: MESSAGE\n"
    "then \"cclscope check: N files, M records: E errors, W notes — OK\" (or\n"
    "FAILED).\n"
    "\n"
    "options:\n"
    "  --json             one JSON object with totals and every finding\n"
    "  --max-findings N   print at most N findings of each code per file\n"
    "                     (default 20, 0 = all); the rest are counted\n"
    "  --no-notes         errors only\n"
    "\n"
    "exit status: 0 no errors (notes allowed), 1 errors, 2 usage error.\n";

static const char help_summary[] =
    "usage: cclscope summary [--json] [--top N] DIR|FILE...\n"
    "\n"
    "Reads every record once (files in lock step, memory bounded by the\n"
    "number of distinct collectives, rank pairs and channels, not by the\n"
    "number of events) and prints:\n"
    "  Communicators  id, name, ranks (from ProfilerLifecycle records)\n"
    "  Collectives    per (comm, function, bytes, timing source): count,\n"
    "                 p50/p90/p99 duration, algBw = bytes / p50 and busBw\n"
    "                 (nccl-tests factors), algorithm and protocol (+ when\n"
    "                 mixed). From timing records when the trace has them;\n"
    "                 otherwise from Coll/P2p events (source \"enqueue\":\n"
    "                 host-side enqueue spans, said so in the output).\n"
    "  Stragglers     collectives matched across ranks by (comm, function,\n"
    "                 seqNumber): per rank how often it arrived last, how\n"
    "                 long the median rank waited for it, its arrival and\n"
    "                 completion relative to the median; the instances with\n"
    "                 the largest arrival spread.\n"
    "  Network        per rank pair and side, from ProxyStep events:\n"
    "                 transfers, bytes, and fits of time = latency + bytes /\n"
    "                 bandwidth (AVG: every transfer; MIN: the fastest\n"
    "                 transfer of each size) with R²; the slowest links.\n"
    "  Channels       per rank: send bytes and busy time per channel, and\n"
    "                 the imbalance (busiest / mean).\n"
    "  Drops          dropped starts/states/stops, reclaims by reason,\n"
    "                 events in flight at exit, lines lost, killed processes.\n"
    "Quantiles come from a log-bucket histogram: relative error <= 0.39 %.\n"
    "\n"
    "options:\n"
    "  --json    the same as one JSON object (keys in docs/cli.md)\n"
    "  --top N   rows of the \"worst\"/\"slowest\" lists (1-10, default 5)\n";

static const char help_merge[] =
    "usage: cclscope merge [--order start|end] [--memory-mb N] -o FILE "
    "DIR|FILE...\n"
    "\n"
    "Writes the records of many processes into one JSONL file, exactly\n"
    "time-ordered. Lines are copied unchanged; pad records and invalid lines\n"
    "are left out (and counted).\n"
    "\n"
    "order:\n"
    "  start (default)  by start time: events by start.ts, timing records by\n"
    "                   start, other records by ts\n"
    "  end              by the time the record was written: an event's stop\n"
    "                   (or endTs), a timing record's stop, others' ts\n"
    "Ties keep the order of the inputs (files by name, then lines).\n"
    "\n"
    "Files are written as events end, in batches, so they are not sorted by\n"
    "either time: merge sorts externally. Chunks of --memory-mb are sorted\n"
    "and written to unlinked temporary files in $TMPDIR (or /tmp), then\n"
    "merged; a trace that fits in memory needs no disk. Memory: --memory-mb\n"
    "plus 256 KiB per chunk; disk: up to the size of the trace.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE   where to write (\"-\" for stdout); required; not\n"
    "                      one of the inputs\n"
    "  --order start|end   see above\n"
    "  --memory-mb N       memory for sorting, in MiB (default 256)\n";

static const char help_perfetto[] =
    "usage: cclscope perfetto [--memory-mb N] [--no-flows] [--states] "
    "-o FILE DIR|FILE...\n"
    "\n"
    "Writes Chrome trace-event JSON that ui.perfetto.dev and chrome://tracing\n"
    "open:\n"
    "  process   one per trace file (host/pid), named \"HOST pid PID\"\n"
    "  thread    one track per (communicator rank, thread, lane): events of\n"
    "            one NCCL thread that overlap without nesting go to extra\n"
    "            lanes of the same thread\n"
    "  X         every event (start..stop, or ..endTs when reclaimed or in\n"
    "            flight), named by function or type; args hold id, parent,\n"
    "            rank, commId and the event's details\n"
    "  s/f       flow arrows: parent -> child (cat \"parent\", PXN parents\n"
    "            across processes too) and the same collective on successive\n"
    "            ranks in arrival order (cat \"collective\", by commId,\n"
    "            function and seqNumber)\n"
    "  C         counters per process: network send GB/s of ProxySteps in\n"
    "            1 ms bins, and busBw GB/s of timing records\n"
    "  M         process and thread names and sort order\n"
    "Timestamps are microseconds relative to otherData.epochBaseUs.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE  where to write (\"-\" for stdout); required\n"
    "  --memory-mb N      memory for sorting by start time, as for merge\n"
    "                     (default 256)\n"
    "  --no-flows         no flow arrows\n"
    "  --states           also draw each event's states as nested slices\n"
    "  --bin-us N         width of counter bins (default 1000)\n";

static const char help_otf2[] =
    "usage: cclscope otf2 [--memory-mb N] -o ARCHIVE DIR|FILE...\n"
    "\n"
    "Writes an OTF2 archive (Score-P's format, read by Vampir) with libotf2:\n"
    "ARCHIVE/traces.otf2, ARCHIVE/traces.def and ARCHIVE/traces/.\n"
    "  system tree     machine -> one node per host\n"
    "  location group  one per trace file (process)\n"
    "  location        one per (communicator rank, thread, lane), as for\n"
    "                  perfetto (OTF2 needs properly nested enter/leave)\n"
    "  region          one per event kind (\"AllReduce\", \"ProxyStep\", ...)\n"
    "  enter/leave     every event, with attributes eventId, commId,\n"
    "                  seqNumber, bytes, peer, channel where they apply\n"
    "  groups, comms   a COMM_LOCATIONS group of rank locations and one\n"
    "                  COMM_GROUP + communicator per NCCL communicator\n"
    "Clock: 1 ns ticks since the Unix epoch. Check it with otf2-print.\n"
    "\n"
    "options:\n"
    "  -o, --output ARCHIVE  folder to create (must not exist); required\n"
    "  --memory-mb N         memory for sorting by start time, as for merge\n"
    "                        (default 256)\n"
    "\n"
    "Needs a build with libotf2 (Debian: libopen-trace-format2-dev).\n";

static const char help_view[] =
    "usage: cclscope view [--memory-mb N] [--no-summary] -o FILE.html "
    "DIR|FILE...\n"
    "\n"
    "Writes one self-contained HTML page (scripts, style and data inside; it\n"
    "opens from a file with no network access) with a timeline of the\n"
    "traces:\n"
    "  lanes       host -> process -> communicator rank -> thread (-> lane:\n"
    "              events of a thread that overlap without nesting), nested\n"
    "              events below their parents; timing records on a\n"
    "              \"completion\" lane per communicator rank\n"
    "  colours     one per event type (legend); click a legend entry to hide\n"
    "              that type\n"
    "  links       parent -> child (PXN parents across processes too) and the\n"
    "              same collective on the other ranks (commId, function,\n"
    "              seqNumber) for the selected event\n"
    "  marks       step and label marks (cclscope_step, cclscope_mark) as\n"
    "              vertical lines\n"
    "  panels      details of the event under the mouse and of the selected\n"
    "              one (every field, states, timing source, bandwidth),\n"
    "              search and filter by type, function or rank, and the\n"
    "              tables of `cclscope summary`\n"
    "Keys: mouse wheel or +/- zoom, drag or arrows pan, 0 or Home shows\n"
    "everything, / searches, Esc clears the selection.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE  where to write (\"-\" for stdout); required\n"
    "  --memory-mb N      memory for sorting by start time, as for merge\n"
    "                     (default 256)\n"
    "  --no-summary       no summary panel (saves one pass over the input)\n";

bool help_print(const char *cmd, FILE *out) {
  static const struct {
    const char *name;
    const char *text;
  } pages[] = {{"check", help_check}, {"summary", help_summary},
               {"merge", help_merge}, {"perfetto", help_perfetto},
               {"otf2", help_otf2},   {"view", help_view}};
  if (!cmd) {
    fputs(overview, out);
    return true;
  }
  for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++) {
    if (strcmp(cmd, pages[i].name) == 0) {
      fputs(pages[i].text, out);
      return true;
    }
  }
  return false;
}
