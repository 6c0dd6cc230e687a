-- SPDX-License-Identifier: Apache-2.0
-- stragglers_gpus.sql — summary's stragglers by GPU (JSON stragglers.gpus).
--
-- It includes stragglers_ranks.sql where that name stands in braces, and
-- so reads the relation of timing rows:
-- `cclscope sql stragglers_gpus --source ...` puts both
-- in. Runs on ClickHouse 18.16 and later. globalRank is the process
-- record's (the launcher's rank); summary names a GPU of a process that
-- drives several by its rank in the largest communicator instead.
SELECT
    host,
    pid,
    device,
    globalRank,
    comms,
    instances,
    timesLast,
    (waitSumNs - unattributedSumNs) / 1e3 AS waitCausedUs,
    ownSumNs / 1e3 AS ownWaitUs,
    (waitSumNs - ownSumNs - unattributedSumNs) / 1e3 AS inheritedWaitUs,
    unattributedSumNs / 1e3 AS unattributedWaitUs,
    waitMaxNs / 1e3 AS maxWaitUs
FROM
(
    SELECT
        host,
        pid,
        device,
        any(globalRank) AS globalRank,
        count() AS comms,
        sum(instances) AS instances,
        sum(timesLast) AS timesLast,
        sum(waitSumNs) AS waitSumNs,
        sum(ownSumNs) AS ownSumNs,
        sum(unattributedSumNs) AS unattributedSumNs,
        max(waitMaxNs) AS waitMaxNs
    FROM
    (
{stragglers_ranks}
    )
    GROUP BY host, pid, device
)
ORDER BY waitCausedUs DESC, timesLast DESC, ownWaitUs DESC, host, pid, device
