#!/usr/bin/env python3
"""Prints Markdown tables of ratios from the JMH JSON results of WarmReadBenchmark, ColdReadBenchmark,
BookKeeperStatusBenchmark and BookKeeperWarmReadBenchmark."""
import json
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def name(result):
    return result["benchmark"].rsplit(".", 1)[-1]


def warm(results):
    seq_local = next(r for r in results if name(r) == "sequentialLocal")["primaryMetric"]
    rnd_local = next(r for r in results if name(r) == "randomLocal")["primaryMetric"]
    local_p50 = rnd_local["scorePercentiles"]["50.0"]
    local_p99 = rnd_local["scorePercentiles"]["99.0"]
    print("### Warm reads (256 MiB file, fully cached)\n")
    print(f"Local FileChannel: sequential 1 MiB reads {seq_local['score']:.0f} MiB/s; "
          f"random 64 KiB reads p50 {local_p50:.1f} us, p99 {local_p99:.1f} us\n")
    print("| checksum.verify | seq MiB/s | seq vs local (goal >= 0.90) | random p50 us | p50 vs local (goal <= 1.20) | random p99 us | p99 vs local |")
    print("|---|---|---|---|---|---|---|")
    for mode in ("always", "first-read", "never"):
        seq = next(r for r in results if name(r) == "sequentialCache" and r["params"]["checksum"] == mode)["primaryMetric"]
        rnd = next(r for r in results if name(r) == "randomCache" and r["params"]["checksum"] == mode)["primaryMetric"]
        ratio = seq["score"] / seq_local["score"]
        p50 = rnd["scorePercentiles"]["50.0"]
        p99 = rnd["scorePercentiles"]["99.0"]
        print(f"| {mode} | {seq['score']:.0f} | {ratio:.2f}x {'met' if ratio >= 0.9 else 'NOT met'} | {p50:.1f} | "
              f"{p50 / local_p50:.2f}x {'met' if p50 / local_p50 <= 1.2 else 'NOT met'} | {p99:.1f} | {p99 / local_p99:.2f}x |")
    print()


def cold(results):
    print("### Cold reads (64 MiB object, first read, S3Proxy with first-byte latency per GET)\n")
    print("| buffer | reader | mean ms | p50 ms | min ms | p50 vs fastest S3A p50 |")
    print("|---|---|---|---|---|---|")
    for buffer in sorted({r["params"]["bufferSize"] for r in results}, key=int, reverse=True):
        rows = [r for r in results if r["params"]["bufferSize"] == buffer]
        s3a = [r for r in rows if r["params"]["reader"].startswith("s3a")]
        fastest = min(s3a, key=lambda r: r["primaryMetric"]["scorePercentiles"]["50.0"])
        best = fastest["primaryMetric"]["scorePercentiles"]["50.0"]
        for r in rows:
            m = r["primaryMetric"]
            p50 = m["scorePercentiles"]["50.0"]
            note = ""
            if r["params"]["reader"].startswith("rubix"):
                note = " met" if p50 <= best else f" NOT met (fastest: {fastest['params']['reader']})"
            print(f"| {int(buffer) // 1024} KiB | {r['params']['reader']} | {m['score']:.0f} | {p50:.0f} | "
                  f"{m['scorePercentiles']['0.0']:.0f} | {p50 / best:.2f}x{note} |")
    print()


def benchmark_class(result):
    return result["benchmark"].rsplit(".", 2)[-2]


def bookkeeper_status(results):
    print("### BookKeeper status RPC (16-block range, loopback, BookKeeper in the benchmark JVM)\n")
    print("| client threads | ops/s (goal >= 50,000) | p50 us (goal <= 50) | p99 us | vs in-process p50 |")
    print("|---|---|---|---|---|")
    by_name = {name(r): r["primaryMetric"] for r in results}
    local_p50 = by_name["latencyInProcess"]["scorePercentiles"]["50.0"] if "latencyInProcess" in by_name else None
    for suffix, threads in (("1Thread", 1), ("4Threads", 4), ("16Threads", 16), ("InProcess", "in-process (1)")):
        if "throughput" + suffix not in by_name or "latency" + suffix not in by_name:
            continue
        ops = by_name["throughput" + suffix]["score"]
        lat = by_name["latency" + suffix]["scorePercentiles"]
        p50, p99 = lat["50.0"], lat["99.0"]
        goals = ""
        if suffix != "InProcess":
            goals = (f" {'met' if ops >= 50000 else 'NOT met'}", f" {'met' if p50 <= 50 else 'NOT met'}")
        else:
            goals = ("", "")
        ratio = f"{p50 / local_p50:.0f}x" if local_p50 else ""
        print(f"| {threads} | {ops:,.0f}{goals[0]} | {p50:.1f}{goals[1]} | {p99:.1f} | {ratio} |")
    print()


def bookkeeper_warm(results):
    local = next(r for r in results if name(r) == "sequentialLocal")["primaryMetric"]["score"]
    cache = {r["params"]["metadata"]: r["primaryMetric"]["score"] for r in results if name(r) == "sequentialCache"}
    print("### Warm 1 MiB sequential reads: BookKeeper daemon vs embedded (256 MiB file, checksum first-read)\n")
    print("| reader | MiB/s | vs local | vs embedded (goal >= 0.90 for daemon) |")
    print("|---|---|---|---|")
    print(f"| local FileChannel | {local:.0f} | 1.00x | |")
    for mode in ("embedded", "daemon"):
        if mode not in cache:
            continue
        vs_embedded = cache[mode] / cache["embedded"] if "embedded" in cache else None
        goal = ""
        if mode == "daemon" and vs_embedded is not None:
            goal = f"{vs_embedded:.2f}x {'met' if vs_embedded >= 0.9 else 'NOT met'}"
        elif vs_embedded is not None:
            goal = "1.00x"
        print(f"| rubix {mode} | {cache[mode]:.0f} | {cache[mode] / local:.2f}x | {goal} |")
    print()


for path in sys.argv[1:]:
    data = load(path)
    kind = benchmark_class(data[0]) if data else ""
    if kind == "BookKeeperStatusBenchmark":
        bookkeeper_status(data)
    elif kind == "BookKeeperWarmReadBenchmark":
        bookkeeper_warm(data)
    elif any(name(r) == "sequentialLocal" for r in data):
        warm(data)
    else:
        cold(data)
