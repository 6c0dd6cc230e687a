-- SPDX-License-Identifier: Apache-2.0
-- share/clickhouse/schema.sql — the tables `cclscope load` fills
-- (docs/clickhouse.md). `cclscope load --create` runs these statements (the
-- text is compiled into the program); an admin can run them by hand:
--
--   DB=cclscope PREFIX=cclscope_ LOCAL= ON_CLUSTER= \
--     envsubst < schema.sql | clickhouse-client --multiquery
--
-- Placeholders: ${DB} the database, ${PREFIX} the table prefix (cclscope_),
-- ${LOCAL} "" on one server or "_local" for the shard tables behind the
-- Distributed tables of distributed.sql, ${ON_CLUSTER} "" or
-- " ON CLUSTER name" (needs ZooKeeper or ClickHouse Keeper).
--
-- Every table is a MergeTree partitioned by run (dropping a run is
-- ALTER TABLE ... DROP PARTITION 'run') and ordered by (runId, file, line):
-- `file` is the trace file's name and `line` the record's line number in
-- it, which is what makes loading idempotent (docs/clickhouse.md). Every
-- row carries its GPU's identity (runId, globalRank, hostname, pid). Runs
-- on ClickHouse 18.16 (Debian 12) and current releases alike.

-- One row per timing record (Coll, P2p, CeColl): the columns are the keys
-- of the format-2 timing record (docs/trace-format.md), timestamps in
-- integer nanoseconds since the epoch.
CREATE TABLE IF NOT EXISTS ${DB}.${PREFIX}timing${LOCAL}${ON_CLUSTER}
(
    recordType String,
    runId String,
    globalRank Nullable(Int32),
    hostname String,
    pid UInt32,
    device Nullable(Int32),
    eventId String,
    type String,
    ctx UInt32,
    commId String,
    commName String,
    rank Int32,
    nranks Int32,
    func String,
    seqNumber Nullable(Int64),
    peer Nullable(Int32),
    algo Nullable(String),
    proto Nullable(String),
    count UInt64,
    datatype String,
    bytes UInt64,
    apiNs Nullable(Int64),
    enqueueStartNs Int64,
    enqueueStopNs Int64,
    source String,
    startNs Int64,
    stopNs Int64,
    durationNs Int64,
    algBw Nullable(Float64),
    busBw Nullable(Float64),
    incomplete UInt8,
    file String,
    line UInt64
)
ENGINE = MergeTree()
PARTITION BY runId
ORDER BY (runId, file, line);

-- One row per communicator per file (its ProfilerInit lifecycle record).
CREATE TABLE IF NOT EXISTS ${DB}.${PREFIX}comms${LOCAL}${ON_CLUSTER}
(
    runId String,
    globalRank Nullable(Int32),
    hostname String,
    pid UInt32,
    device Nullable(Int32),
    gpuUuid String,
    ctx UInt32,
    commId String,
    commName String,
    rank Int32,
    nranks Int32,
    nNodes Int32,
    file String,
    line UInt64
)
ENGINE = MergeTree()
PARTITION BY runId
ORDER BY (runId, file, line);

-- One row per trace file: its process record, how the file ended
-- (processEnd) and what it lost (accounting record, processEnd).
CREATE TABLE IF NOT EXISTS ${DB}.${PREFIX}processes${LOCAL}${ON_CLUSTER}
(
    runId String,
    runIdSource String,
    globalRank Nullable(Int32),
    globalRankSource String,
    localRank Nullable(Int32),
    worldSize Nullable(Int32),
    hostname String,
    pid UInt32,
    ppid Nullable(UInt32),
    host String,
    ncclVersion String,
    pluginVersion String,
    formatVersion UInt32,
    clock String,
    mode String,
    eventMask UInt64,
    compression String,
    startNs Int64,
    endNs Nullable(Int64),
    endReason String,
    eventsWritten Nullable(UInt64),
    linesLost UInt64,
    bytesLost UInt64,
    writeErrors UInt64,
    droppedStarts UInt64,
    droppedStates UInt64,
    droppedStops UInt64,
    timingRecords UInt64,
    file String,
    line UInt64
)
ENGINE = MergeTree()
PARTITION BY runId
ORDER BY (runId, file, line);

-- With --events: one row per event record but ProxySteps (NCCL events and
-- ProfilerLifecycle records). details and states are the record's JSON
-- text (JSONExtract* reads them); timestamps in integer nanoseconds.
CREATE TABLE IF NOT EXISTS ${DB}.${PREFIX}events${LOCAL}${ON_CLUSTER}
(
    runId String,
    globalRank Nullable(Int32),
    hostname String,
    pid UInt32,
    eventId String,
    type String,
    parentId Nullable(String),
    parentStatus String,
    ctx Nullable(UInt32),
    commId Nullable(String),
    rank Int32,
    func String,
    tid Nullable(Int64),
    startNs Nullable(Int64),
    stopNs Nullable(Int64),
    durationNs Nullable(Int64),
    endState String,
    reclaimReason String,
    endNs Nullable(Int64),
    details String,
    states String,
    file String,
    line UInt64
)
ENGINE = MergeTree()
PARTITION BY runId
ORDER BY (runId, file, line);

-- With --proxy-steps: one row per ProxyStep event, its descriptor fields
-- as columns; transSize is the largest of its states' (SendWait,
-- RecvFlushWait), states the JSON text of its states.
CREATE TABLE IF NOT EXISTS ${DB}.${PREFIX}proxy_steps${LOCAL}${ON_CLUSTER}
(
    runId String,
    globalRank Nullable(Int32),
    hostname String,
    pid UInt32,
    eventId String,
    parentId Nullable(String),
    ctx Nullable(UInt32),
    commId Nullable(String),
    rank Int32,
    step Nullable(Int64),
    peer Nullable(Int32),
    channelId Nullable(Int32),
    isSend Nullable(UInt8),
    startNs Nullable(Int64),
    stopNs Nullable(Int64),
    endState String,
    transSize Nullable(UInt64),
    states String,
    file String,
    line UInt64
)
ENGINE = MergeTree()
PARTITION BY runId
ORDER BY (runId, file, line);

-- Load markers: one row per (file, table) once every row of that file for
-- that table is stored. A file whose markers are all there is not read
-- again; a file without is completed line by line (docs/clickhouse.md).
CREATE TABLE IF NOT EXISTS ${DB}.${PREFIX}loads${LOCAL}${ON_CLUSTER}
(
    runId String,
    file String,
    tableName String,
    rows UInt64,
    fileBytes UInt64,
    loader String,
    loadedAt DateTime DEFAULT now()
)
ENGINE = MergeTree()
PARTITION BY runId
ORDER BY (runId, file, tableName);
