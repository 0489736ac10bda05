#!/usr/bin/env python3
"""Prints Markdown tables of ratios from the JMH JSON results of WarmReadBenchmark and ColdReadBenchmark."""
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


for path in sys.argv[1:]:
    data = load(path)
    if any(name(r) == "sequentialLocal" for r in data):
        warm(data)
    else:
        cold(data)
