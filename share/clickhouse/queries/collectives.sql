-- SPDX-License-Identifier: Apache-2.0
-- collectives.sql — summary's collectives table (JSON collectives.rows).
--
-- It reads the relation of timing rows written timing in braces below
-- (docs/clickhouse.md, Queries):
-- `cclscope sql collectives --source ...` puts in the loaded table or the
-- trace files read in place. Runs on ClickHouse 18.16 and later.
--
-- Quantiles follow the CLI's log-bucket histogram (src/cli/summary/
-- log_hist.c): a duration below 128 ns is its own bucket; above, a power of
-- two 2^e is cut into 128 buckets of width 2^(e-7), and a bucket stands for
-- its midpoint. The q-quantile is the midpoint of the bucket that holds the
-- ceil(q * count)-th smallest duration, clamped to the exact min and max.
-- Count, min, max and mean are exact. algBw = bytes / p50 (GB/s), busBw =
-- algBw x the nccl-tests factor; both only for spans that time the
-- transfer (gpu, cupti, proxy), NULL for host spans.
SELECT
    commId,
    commName,
    func,
    bytes,
    source,
    nranks,
    count,
    p50Ns / 1e3 AS p50Us,
    p90Ns / 1e3 AS p90Us,
    p99Ns / 1e3 AS p99Us,
    sumNs / count / 1e3 AS meanUs,
    minNs / 1e3 AS minUs,
    maxNs / 1e3 AS maxUs,
    if(source IN ('gpu', 'cupti', 'proxy'),
       if(p50Ns > 0, bytes / p50Ns, 0), NULL) AS algBwGBs,
    algBwGBs * multiIf(nranks < 2, 1.,
                       func = 'AllReduce', 2. * (nranks - 1.) / nranks,
                       func IN ('AllGather', 'ReduceScatter', 'AlltoAll',
                                'AllToAll', 'Gather', 'Scatter'),
                       (nranks - 1.) / nranks,
                       1.) AS busBwGBs
FROM
(
    SELECT
        commId,
        any(commName) AS commName,
        func,
        bytes,
        source,
        max(rowNranks) AS nranks,
        sum(bucketCount) AS count,
        min(bucketMin) AS minNs,
        max(bucketMax) AS maxNs,
        sum(bucketSum) AS sumNs,
        arraySort(groupArray((bucketMid, bucketCount))) AS buckets,
        arrayMap(b -> tupleElement(b, 1), buckets) AS mids,
        arrayCumSum(arrayMap(b -> tupleElement(b, 2), buckets)) AS upTo,
        greatest(toUInt64(ceil(0.5 * count)), 1) AS rank50,
        greatest(toUInt64(ceil(0.9 * count)), 1) AS rank90,
        greatest(toUInt64(ceil(0.99 * count)), 1) AS rank99,
        least(greatest(mids[arrayFirstIndex(c -> c >= rank50, upTo)], minNs), maxNs) AS p50Ns,
        least(greatest(mids[arrayFirstIndex(c -> c >= rank90, upTo)], minNs), maxNs) AS p90Ns,
        least(greatest(mids[arrayFirstIndex(c -> c >= rank99, upTo)], minNs), maxNs) AS p99Ns
    FROM
    (
        SELECT
            commId,
            any(commName) AS commName,
            func,
            bytes,
            source,
            max(nranks) AS rowNranks,
            bucketMid,
            count() AS bucketCount,
            min(durationNs) AS bucketMin,
            max(durationNs) AS bucketMax,
            sum(durationNs) AS bucketSum
        FROM
        (
            SELECT
                commId,
                commName,
                func,
                bytes,
                source,
                nranks,
                toInt64(durationNs) AS durationNs,
                -- e: the power of two below the duration (log2 of a double
                -- can round up just below a power of two: one step back)
                toUInt8(floor(log2(toFloat64(greatest(durationNs, 1))))) AS e0,
                if(bitShiftRight(durationNs, e0) = 0, e0 - 1, e0) AS e,
                if(durationNs < 128, durationNs,
                   bitShiftLeft(bitShiftRight(durationNs, e - 7), e - 7)
                   + if(e = 7, 0, bitShiftLeft(toInt64(1), e - 8))) AS bucketMid
            FROM {timing}
            WHERE durationNs >= 0
        )
        GROUP BY commId, func, bytes, source, bucketMid
    )
    GROUP BY commId, func, bytes, source
)
ORDER BY commName, commId, func, bytes, source
