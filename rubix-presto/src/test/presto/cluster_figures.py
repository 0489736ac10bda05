#!/usr/bin/env python3
"""Figures of presto-cluster-s3.sh, from the BookKeepers' /metrics and the coordinator's query info.

  cluster_figures.py scrape OUT ADDRESS:HTTP:METRICS...
                                                     one scrape of each worker into OUT (JSON): its BookKeeper's
                                                     /metrics, and what its file systems counted (JMX, through
                                                     the worker's /v1/jmx/mbean)
  cluster_figures.py splits QUERY_INFO_JSON...       scan splits (drivers) per worker host, as JSON
  cluster_figures.py pass NAME BEFORE AFTER SPLITS S3_COUNTERS
                                                     one pass's figures: a key=value line
"""
import json
import sys
import urllib.error
import urllib.request

# what a worker's caching file systems read, by where the bytes came from (their io.rubix:type=Cache beans,
# exact as soon as a query ends), and what its BookKeeper did for peers (/metrics)
READ = {"hit": "reader_rubix_cache_hit_bytes", "peer": "reader_rubix_peer_bytes", "source": "reader_rubix_source_bytes"}
OTHER = {"served": "rubix_transfer_bytes_served", "fill": "rubix_peer_fill_source_bytes",
         "nonOwner": "reader_rubix_non_owner_source_bytes", "handoff": "reader_rubix_handoff_bytes"}


def scrape(out, nodes):
    result = {}
    for node in nodes:
        address, http, metrics = node.split(":")
        values = {}
        with urllib.request.urlopen(f"http://{address}:{http}/v1/jmx/mbean", timeout=10) as response:
            for bean in json.load(response):
                name = bean["objectName"]
                # the caches of the worker's file systems; not the BookKeeper's own (its peer fills)
                if not name.startswith("io.rubix:") or "type=Cache," not in name or "bookkeeper-peer-fill" in name:
                    continue
                for attribute in bean.get("attributes", []):
                    if attribute.get("name") == "Counters":
                        for counter, value in counter_items(attribute.get("value")):
                            values["reader_" + counter] = values.get("reader_" + counter, 0.0) + float(value)
        try:
            with urllib.request.urlopen(f"http://{address}:{metrics}/metrics", timeout=10) as response:
                for line in response.read().decode().splitlines():
                    if not line or line.startswith("#"):
                        continue
                    name_labels, value = line.rsplit(" ", 1)
                    name = name_labels.split("{", 1)[0]
                    values[name] = values.get(name, 0.0) + float(value)
        except urllib.error.URLError:
            # the BookKeeper starts with the worker's first caching file system: none yet, nothing counted
            if values:
                raise
        result[address] = values
    json.dump(result, open(out, "w"))


def counter_items(value):
    """A Map<String, Long> attribute as JMX's JSON shows it: an object, or a list of {key, value} rows."""
    if isinstance(value, dict):
        return list(value.items())
    if isinstance(value, list):
        return [(row.get("key"), row.get("value")) for row in value if isinstance(row, dict) and "key" in row]
    raise ValueError(f"unexpected Counters attribute: {value!r:.200}")


def splits(files):
    """Drivers of pipelines that scan a table, per worker host (a scan driver reads one split)."""
    per_host, seen = {}, set()

    def walk(node):
        if isinstance(node, dict):
            status, stats = node.get("taskStatus"), node.get("stats")
            task = node.get("taskId")
            if status and stats and task not in seen:
                seen.add(task)
                host = status["self"].split("//", 1)[1].split(":", 1)[0]
                for pipeline in stats.get("pipelines", []):
                    types = {o.get("operatorType", "") for o in pipeline.get("operatorSummaries", [])}
                    if "TableScanOperator" in types or "ScanFilterAndProjectOperator" in types:
                        per_host[host] = per_host.get(host, 0) + pipeline.get("totalDrivers", 0)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for file in files:
        walk(json.load(open(file)))
    print(json.dumps(per_host))


def figures(name, before_file, after_file, splits_file, s3):
    before, after = json.load(open(before_file)), json.load(open(after_file))
    split_counts = json.load(open(splits_file))
    s3 = dict(kv.split("=") for kv in s3.split())
    nodes = sorted(after)
    delta = {n: {k: after[n].get(m, 0) - before.get(n, {}).get(m, 0) for k, m in {**READ, **OTHER}.items()} for n in nodes}
    total = {k: sum(delta[n][k] for n in nodes) for k in {**READ, **OTHER}}
    read = total["hit"] + total["peer"] + total["source"]
    cached = {n: after[n].get("rubix_cache_used_bytes", 0) for n in nodes}
    mean = sum(cached.values()) / len(nodes)
    share = lambda part, whole: f"{part / whole:.3f}" if whole else "nan"
    # on its own node: what the node's readers took from its cache or fetched into it themselves (owner);
    # a split run off its owner takes its blocks from a peer, or from S3 (rubix_non_owner_source_bytes)
    own = total["hit"] + total["source"] - total["nonOwner"]
    fields = {
        f"{name}Gets": s3.get("gets"), f"{name}Heads": s3.get("heads"), f"{name}S3Bytes": s3.get("bytes"),
        f"{name}ReadBytes": int(read), f"{name}OwnShare": share(own, read),
        f"{name}HitShare": share(total["hit"], read), f"{name}PeerShare": share(total["peer"], read),
        f"{name}S3Share": share(total["source"] + total["fill"], read + total["fill"]),
        f"{name}PeerBytes": int(total["peer"]), f"{name}ServedBytes": int(total["served"]),
        f"{name}FillS3Bytes": int(total["fill"]), f"{name}NonOwnerS3Bytes": int(total["nonOwner"]),
        f"{name}HandoffBytes": int(total["handoff"]),
        f"{name}Splits": "/".join(str(split_counts.get(n, 0)) for n in nodes),
        f"{name}Cached": "/".join(str(int(cached[n])) for n in nodes),
        f"{name}CachedMaxOverMean": f"{max(cached.values()) / mean:.3f}" if mean else "nan",
    }
    for n in nodes:
        d = delta[n]
        node_read = d["hit"] + d["peer"] + d["source"]
        fields[f"{name}Node{n.rsplit('.', 1)[1]}"] = (
            f"hit:{int(d['hit'])},peer:{int(d['peer'])},s3:{int(d['source'])},nonOwnerS3:{int(d['nonOwner'])},"
            f"served:{int(d['served'])},fillS3:{int(d['fill'])},ownShare:{share(d['hit'] + d['source'] - d['nonOwner'], node_read)}")
    print(" ".join(f"{k}={v}" for k, v in fields.items()))


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    if command == "scrape":
        scrape(args[0], args[1:])
    elif command == "splits":
        splits(args)
    elif command == "pass":
        figures(*args)
    else:
        sys.exit(__doc__)
