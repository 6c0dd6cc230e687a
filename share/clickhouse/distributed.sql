-- SPDX-License-Identifier: Apache-2.0
-- share/clickhouse/distributed.sql — the Distributed tables over a
-- cluster's shards, one per table of schema.sql (whose shard tables are then
-- created with LOCAL=_local). `cclscope load --create --cluster NAME` runs
-- these after schema.sql; by hand:
--
--   DB=cclscope PREFIX=cclscope_ CLUSTER=mycluster ON_CLUSTER=" ON CLUSTER mycluster" \
--     envsubst < distributed.sql | clickhouse-client --multiquery
--
-- ${CLUSTER} is a cluster of the servers' remote_servers configuration.
-- Rows go to a shard by their run and file, so that a trace file's rows
-- (and its load markers) are all on one shard: a file is loaded, checked
-- and completed in one place (docs/clickhouse.md).

CREATE TABLE IF NOT EXISTS ${DB}.${PREFIX}timing${ON_CLUSTER}
AS ${DB}.${PREFIX}timing_local
ENGINE = Distributed(${CLUSTER}, ${DB}, ${PREFIX}timing_local, cityHash64(runId, file));

CREATE TABLE IF NOT EXISTS ${DB}.${PREFIX}comms${ON_CLUSTER}
AS ${DB}.${PREFIX}comms_local
ENGINE = Distributed(${CLUSTER}, ${DB}, ${PREFIX}comms_local, cityHash64(runId, file));

CREATE TABLE IF NOT EXISTS ${DB}.${PREFIX}processes${ON_CLUSTER}
AS ${DB}.${PREFIX}processes_local
ENGINE = Distributed(${CLUSTER}, ${DB}, ${PREFIX}processes_local, cityHash64(runId, file));

CREATE TABLE IF NOT EXISTS ${DB}.${PREFIX}events${ON_CLUSTER}
AS ${DB}.${PREFIX}events_local
ENGINE = Distributed(${CLUSTER}, ${DB}, ${PREFIX}events_local, cityHash64(runId, file));

CREATE TABLE IF NOT EXISTS ${DB}.${PREFIX}proxy_steps${ON_CLUSTER}
AS ${DB}.${PREFIX}proxy_steps_local
ENGINE = Distributed(${CLUSTER}, ${DB}, ${PREFIX}proxy_steps_local, cityHash64(runId, file));

CREATE TABLE IF NOT EXISTS ${DB}.${PREFIX}loads${ON_CLUSTER}
AS ${DB}.${PREFIX}loads_local
ENGINE = Distributed(${CLUSTER}, ${DB}, ${PREFIX}loads_local, cityHash64(runId, file));
