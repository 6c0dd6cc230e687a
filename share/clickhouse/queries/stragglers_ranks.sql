-- SPDX-License-Identifier: Apache-2.0
-- stragglers_ranks.sql — summary's stragglers by (communicator, rank) (JSON stragglers.ranks).
--
-- It reads the relation of timing rows written timing in braces below
-- (docs/clickhouse.md, Queries):
-- `cclscope sql stragglers_ranks --source ...` puts in the loaded table or
-- the trace files read in place. Runs on ClickHouse 18.16 and later (arrays
-- only: no window functions, no ASOF JOIN).
--
-- The definitions (docs/cli.md, Stragglers) step by step:
-- 1. gaps: a GPU (host, pid, device) orders its timing rows by arrival
--    (apiNs, else enqueueStartNs, else startNs; ties: earlier stopNs
--    first). A row's gap is its arrival minus the later of the arrival of
--    the row before it and the latest stopNs of another row of the GPU
--    that came at most 100 us after the arrival. The GPU's first row has
--    no gap.
-- 2. instances: collectives with a seqNumber (not P2p) matched by
--    (commId, func, seqNumber), those seen on two ranks or more. Per
--    instance: the median arrival, completion and gap (of the ranks that
--    have one; the lower middle plus half the difference, rounded down),
--    the last rank (latest arrival; of equal ones the lowest rank),
--    spread = last - first arrival, wait = last - median arrival. When
--    spread > 0 the last rank is "last": its own wait is its gap minus the
--    median gap, between 0 and the wait, when two ranks or more have a gap
--    and it has one; else the whole wait is unattributed (start-up skew).
-- 3. per (commId, rank): sums over its instances.
SELECT
    commId,
    commName,
    rank,
    hostname AS host,
    pid,
    device,
    globalRank,
    instances,
    timesLast,
    timesLast / instances AS lastFraction,
    if(timesLast > 0, waitSumNs / 1e3 / timesLast, 0) AS meanWaitUs,
    waitMaxNs / 1e3 AS maxWaitUs,
    arrivalOffsetSumNs / 1e3 / instances AS meanArrivalOffsetUs,
    completionOffsetSumNs / 1e3 / instances AS meanCompletionOffsetUs,
    (waitSumNs - unattributedSumNs) / 1e3 AS waitCausedUs,
    ownSumNs / 1e3 AS ownWaitUs,
    (waitSumNs - ownSumNs - unattributedSumNs) / 1e3 AS inheritedWaitUs,
    unattributedSumNs / 1e3 AS unattributedWaitUs,
    waitSumNs,
    ownSumNs,
    unattributedSumNs,
    waitMaxNs
FROM
(
    -- 3. per (communicator, rank)
    SELECT
        commId,
        any(commName) AS commName,
        rank,
        any(rankHostname) AS hostname,
        any(rankPid) AS pid,
        any(rankDevice) AS device,
        any(rankGlobalRank) AS globalRank,
        count() AS instances,
        sum(isLast) AS timesLast,
        sum(rankWaitNs) AS waitSumNs,
        max(rankWaitNs) AS waitMaxNs,
        sum(rankOwnNs) AS ownSumNs,
        sum(rankUnattributedNs) AS unattributedSumNs,
        sum(rankArrival - medianArrival) AS arrivalOffsetSumNs,
        sum(rankCompletion - medianCompletion) AS completionOffsetSumNs
    FROM
    (
        SELECT
            commId,
            commName,
            rankInInstance AS rank,
            rankHostname,
            rankPid,
            rankDevice,
            rankGlobalRank,
            rankArrival,
            rankCompletion,
            medianArrival,
            medianCompletion,
            toUInt64(spreadNs > 0 AND rankInInstance = lastRank) AS isLast,
            if(isLast = 1, waitNs, 0) AS rankWaitNs,
            if(isLast = 1, ownNs, 0) AS rankOwnNs,
            if(isLast = 1, unattributedNs, 0) AS rankUnattributedNs
        FROM
        (
            -- 2. per instance
            SELECT
                commId,
                commName,
                ranks,
                arrivals,
                completions,
                hostnames,
                pids,
                devices,
                globalRanks,
                length(arrivals) AS n,
                arraySort(arrivals) AS sortedArrivals,
                arraySort(completions) AS sortedCompletions,
                arraySort(arrayFilter((g, k) -> k = 1, gaps, gapKnown)) AS knownGaps,
                length(knownGaps) AS nGaps,
                if(n % 2 = 1, sortedArrivals[intDiv(n, 2) + 1],
                   sortedArrivals[intDiv(n, 2)]
                   + intDiv(sortedArrivals[intDiv(n, 2) + 1] - sortedArrivals[intDiv(n, 2)], 2)) AS medianArrival,
                if(n % 2 = 1, sortedCompletions[intDiv(n, 2) + 1],
                   sortedCompletions[intDiv(n, 2)]
                   + intDiv(sortedCompletions[intDiv(n, 2) + 1] - sortedCompletions[intDiv(n, 2)], 2)) AS medianCompletion,
                if(nGaps % 2 = 1, knownGaps[intDiv(nGaps, 2) + 1],
                   knownGaps[intDiv(nGaps, 2)]
                   + intDiv(knownGaps[intDiv(nGaps, 2) + 1] - knownGaps[intDiv(nGaps, 2)], 2)) AS medianGap,
                sortedArrivals[n] AS lastArrival,
                lastArrival - sortedArrivals[1] AS spreadNs,
                lastArrival - medianArrival AS waitNs,
                arrayReduce('min', arrayFilter((r, a) -> a = lastArrival, ranks, arrivals)) AS lastRank,
                arrayFirstIndex((r, a) -> r = lastRank AND a = lastArrival, ranks, arrivals) AS lastIndex,
                nGaps >= 2 AND gapKnown[lastIndex] = 1 AS attributable,
                if(attributable, least(greatest(gaps[lastIndex] - medianGap, 0), waitNs), 0) AS ownNs,
                if(attributable, 0, waitNs) AS unattributedNs
            FROM
            (
                SELECT
                    commId,
                    any(commName) AS commName,
                    groupArray(opRank) AS ranks,
                    groupArray(arrival) AS arrivals,
                    groupArray(completion) AS completions,
                    groupArray(gap) AS gaps,
                    groupArray(hasGap) AS gapKnown,
                    groupArray(hostname) AS hostnames,
                    groupArray(pid) AS pids,
                    groupArray(device) AS devices,
                    groupArray(globalRank) AS globalRanks
                FROM
                (
                    -- 1. gaps, per GPU
                    SELECT
                        hostname,
                        pid,
                        device,
                        tupleElement(op, 1) AS arrival,
                        tupleElement(op, 2) AS completion,
                        tupleElement(op, 3) AS commId,
                        tupleElement(op, 4) AS commName,
                        tupleElement(op, 5) AS func,
                        tupleElement(op, 6) AS seqNumber,
                        tupleElement(op, 7) AS opRank,
                        tupleElement(op, 8) AS matched,
                        tupleElement(op, 9) AS globalRank,
                        gap,
                        toUInt8(position > 1) AS hasGap
                    FROM
                    (
                        SELECT
                            hostname,
                            pid,
                            device,
                            arraySort(groupArray((arrival, completion, commId, commName, func,
                                                  seqNumber, rank, matched, globalRank))) AS ops,
                            arrayMap(o -> tupleElement(o, 1), ops) AS opArrivals,
                            arrayMap(o -> tupleElement(o, 2), ops) AS opCompletions,
                            arrayEnumerate(ops) AS positions,
                            arrayPopBack(arrayPushFront(opArrivals, toInt64(0))) AS previousArrivals,
                            -- the latest completion at most 100 us after each
                            -- arrival: the completions, sorted, and the arrivals
                            -- + 100 us go into one sorted list (a completion
                            -- before an arrival at the same time); summing the
                            -- steps between sorted completions up to an
                            -- arrival gives the latest completion, the steps
                            -- shifted by one the one before it (the latest may
                            -- be the operation's own)
                            arraySort(opCompletions) AS sortedCompletions,
                            arrayMap((c, p) -> c - p, sortedCompletions,
                                     arrayPopBack(arrayPushFront(sortedCompletions, toInt64(0)))) AS steps,
                            arrayPopBack(arrayPushFront(steps, toInt64(0))) AS stepsBefore,
                            arraySort(arrayConcat(
                                arrayMap((c, d, b) -> (c, toUInt8(0), toUInt32(0), d, b),
                                         sortedCompletions, steps, stepsBefore),
                                arrayMap((a, k) -> (a + 100000, toUInt8(1), toUInt32(k), toInt64(0), toInt64(0)),
                                         opArrivals, positions))) AS timeline,
                            arrayCumSum(arrayMap(t -> toUInt32(tupleElement(t, 2) = 0), timeline)) AS doneUpTo,
                            arrayCumSum(arrayMap(t -> tupleElement(t, 4), timeline)) AS latestUpTo,
                            arrayCumSum(arrayMap(t -> tupleElement(t, 5), timeline)) AS beforeLatestUpTo,
                            arrayFilter((v, t) -> tupleElement(t, 2) = 1, doneUpTo, timeline) AS doneCounts,
                            arrayFilter((v, t) -> tupleElement(t, 2) = 1, latestUpTo, timeline) AS latestDone,
                            arrayFilter((v, t) -> tupleElement(t, 2) = 1, beforeLatestUpTo, timeline) AS beforeLatestDone,
                            -- gap = arrival - the later of the previous arrival
                            -- and the latest completion of another operation
                            arrayMap((a, c, pa, n, l, b) ->
                                         a - greatest(pa, multiIf(n = 0, pa,
                                                                  c <= a + 100000 AND l = c,
                                                                  if(n >= 2, b, pa), l)),
                                     opArrivals, opCompletions, previousArrivals,
                                     doneCounts, latestDone, beforeLatestDone) AS gaps
                        FROM
                        (
                            SELECT
                                hostname,
                                pid,
                                coalesce(device, -1) AS device,
                                toInt64(coalesce(apiNs, if(enqueueStartNs = 0, startNs, enqueueStartNs))) AS arrival,
                                toInt64(stopNs) AS completion,
                                commId,
                                commName,
                                func,
                                coalesce(seqNumber, -1) AS seqNumber,
                                rank,
                                toUInt8(type != 'ncclProfileP2p' AND isNotNull(seqNumber)) AS matched,
                                coalesce(globalRank, -1) AS globalRank
                            FROM {timing}
                        )
                        GROUP BY hostname, pid, device
                    )
                    ARRAY JOIN ops AS op, gaps AS gap, positions AS position
                )
                WHERE matched = 1
                GROUP BY commId, func, seqNumber
                HAVING count() >= 2
            )
        )
        ARRAY JOIN
            ranks AS rankInInstance,
            arrivals AS rankArrival,
            completions AS rankCompletion,
            hostnames AS rankHostname,
            pids AS rankPid,
            devices AS rankDevice,
            globalRanks AS rankGlobalRank
    )
    GROUP BY commId, rank
)
ORDER BY waitCausedUs DESC, timesLast DESC, ownWaitUs DESC, commId, rank
