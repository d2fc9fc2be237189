"""Issue 27's bench: a partitioned queue (spec/PROTOCOL.md 5.25) on a local Redis Cluster of three
primaries (no replicas), drained by the Rust runner (`Worker::partitioned`, concurrency 50, no-op
handler) with P = 1, 3 and 6 partitions. Used by bench/driver.py (workloads of kind
"partitioned").

Per run it reports items/s, and for each primary: the items it served (its partitions' items,
each partition mapped to its primary by its slot), its Redis CPU (INFO cpu) per item it served,
and its commands per item (INFO commandstats). Runs of P = 1, 3 and 6 interleave (run 1 of each,
then run 2, ...), so that the ratios against P = 1 are taken between runs that ran side by side.
"""

import os
import shutil
import socket
import statistics
import subprocess
import tempfile
import time

import redis

PRIMARIES = 3
# The commands bench/driver.py sends itself; left out of the counts (same as its DRIVER_COMMANDS).
DRIVER = ("info", "config", "slowlog", "latency", "ping", "cluster")


def free_cluster_port():
    """A free loopback port whose cluster bus port (+10000) is free too."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port + 10000 > 65535:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        return port


class Cluster:
    """Three throwaway cluster-enabled redis-servers on free loopback ports, joined by
    `redis-cli --cluster create` (no replicas), each owning a third of the slots."""

    def __init__(self, primaries=PRIMARIES):
        self.dir = tempfile.mkdtemp(prefix="leaseq-bench-cluster-")
        self.ports, self.procs = [], []
        for i in range(primaries):
            port = free_cluster_port()
            d = os.path.join(self.dir, str(port))
            os.makedirs(d)
            self.procs.append(subprocess.Popen(
                ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                 "--cluster-enabled", "yes", "--cluster-config-file", os.path.join(d, "nodes.conf"),
                 "--cluster-node-timeout", "5000", "--dir", d, "--logfile", os.path.join(d, "redis.log")],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            self.ports.append(port)
        self.nodes = [redis.Redis(host="127.0.0.1", port=p) for p in self.ports]
        for r in self.nodes:
            for _ in range(100):
                try:
                    r.ping()
                    break
                except redis.ConnectionError:
                    time.sleep(0.05)
            else:
                raise RuntimeError("a cluster node did not start")
        subprocess.run(["redis-cli", "--cluster", "create", *[f"127.0.0.1:{p}" for p in self.ports],
                        "--cluster-replicas", "0", "--cluster-yes"], check=True, capture_output=True, text=True)
        deadline = time.time() + 60
        for r in self.nodes:
            while b"cluster_state:ok" not in r.execute_command("CLUSTER", "INFO"):
                if time.time() > deadline:
                    raise RuntimeError("the cluster never reached cluster_state:ok")
                time.sleep(0.1)
        self.url = ",".join(f"redis://127.0.0.1:{p}" for p in self.ports)
        self.version = self.nodes[0].info("server")["redis_version"]
        # Each node's CPU while idle (cluster bus and cron), per second: part of every figure
        # below, reported beside them.
        c0 = [cpu(r.info("cpu")) for r in self.nodes]
        t0 = time.monotonic()
        time.sleep(2)
        secs = time.monotonic() - t0
        self.idle_cpu_per_s = [(cpu(r.info("cpu")) - c) / secs for r, c in zip(self.nodes, c0)]

    def owner(self, key):
        """The port of the primary that serves `key`'s slot."""
        slot = self.nodes[0].execute_command("CLUSTER", "KEYSLOT", key)
        for start, end, primary, *_ in self.nodes[0].execute_command("CLUSTER", "SLOTS"):
            if start <= slot <= end:
                return int(primary[1])
        raise RuntimeError(f"no primary serves slot {slot}")

    def stop(self):
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def cpu(info):
    return info["used_cpu_user"] + info["used_cpu_sys"]


def run_once(cl, client_argv, w, n, payload, read_json_line, log):
    """One run of partitioned workload `w` with `n` items: the runner's result plus, for each
    primary, what it served and what that cost it."""
    for r in cl.nodes:
        r.flushall()
        r.script_flush()
    argv = client_argv + ["--workload", w["runner"], "--url", cl.url, "--prefix", f"bench{{{w['id']}}}",
                          "--n", str(n), "--payload", str(payload)] + list(w.get("args", []))
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True,
                            cwd=os.path.dirname(os.path.abspath(__file__)))
    try:
        read_json_line(proc, "ready")
        infos0 = [r.info("cpu") for r in cl.nodes]
        cpu0 = [cpu(i) for i in infos0]
        for r in cl.nodes:
            r.config_resetstat()
        proc.stdin.write("go\n")
        proc.stdin.flush()
        result = read_json_line(proc, "result")["result"]
        infos = [r.execute_command("INFO", "stats", "commandstats", "cpu") for r in cl.nodes]
        proc.stdin.close()
        if proc.wait(120) != 0:
            raise RuntimeError(f"runner exited with {proc.returncode}")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    items = result["items"]
    served = {p: 0 for p in cl.ports}
    partitions = []
    for part in result["partitions"]:
        port = cl.owner(part["prefix"] + ":queue")
        served[port] += part["items"]
        partitions.append(dict(part, port=port))
    nodes = []
    for port, info, c0, i0, idle in zip(cl.ports, infos, cpu0, infos0, cl.idle_cpu_per_s):
        calls = sum(v["calls"] for k, v in info.items()
                    if k.startswith("cmdstat_") and not k[len("cmdstat_"):].split("|")[0].lower() in DRIVER)
        used = cpu(info) - c0
        k = served[port]
        by_name = {k2[len("cmdstat_"):]: v["calls"] for k2, v in info.items()
                   if k2.startswith("cmdstat_") and not k2[len("cmdstat_"):].split("|")[0].lower() in DRIVER}
        nodes.append(dict(port=port, items=k, share=k / items, redis_cpu_us=used * 1e6,
                          redis_cpu_us_per_item=used * 1e6 / k if k else None,
                          # of which in the kernel (sockets, epoll): grows as a node's load thins
                          redis_cpu_sys_us_per_item=(info["used_cpu_sys"] - i0["used_cpu_sys"]) * 1e6 / k if k else None,
                          idle_cpu_us=idle * result["seconds"] * 1e6,
                          commands_per_item=calls / k if k else None,
                          commands={c: v / k for c, v in sorted(by_name.items())} if k else {},
                          round_trips_per_item=max(info["total_reads_processed"] - 1, 0) / k if k else None))
    serving = [x for x in nodes if x["items"]]
    out = dict(result, rate=items / result["seconds"], nodes=nodes, partitions=partitions,
               primaries_serving=len(serving),
               share_max_min=max(x["items"] for x in serving) / min(x["items"] for x in serving),
               redis_cpu_us_per_item=sum(x["redis_cpu_us"] for x in serving) / items,
               max_primary_cpu_us_per_item=max(x["redis_cpu_us_per_item"] for x in serving),
               commands_per_item=sum(x["commands_per_item"] * x["items"] for x in serving) / items)
    if "cpu_seconds" in result:
        out["client_cpu_us_per_item"] = result["cpu_seconds"] * 1e6 / items
    return out


def run_all(workloads, only, clients, client_argv, runs, scale, payload, results, read_json_line, log):
    """Runs every partitioned workload of `workloads` (those in `only`, when given) on one new
    cluster, interleaved run by run; appends to `results[workload][client]`. Returns the ids
    run."""
    chosen = [w for w in workloads if w["kind"] == "partitioned" and (not only or w["id"] in only)
              and any(c in w["n"] for c in clients)]
    if not chosen:
        return []
    cl = Cluster()
    try:
        print(f"bench: partitioned queues on a cluster of {len(cl.ports)} primaries (redis-server {cl.version}); "
              f"idle CPU per primary {', '.join(f'{x * 1e3:.1f}' for x in cl.idle_cpu_per_s)} ms/s", flush=True)
        for run in range(runs):
            for w in chosen:
                for client in (c for c in clients if c in w["n"]):
                    n = max(1, int(w["n"][client] * scale))
                    t0 = time.time()
                    try:
                        out = run_once(cl, client_argv[client], w, n, payload, read_json_line, log)
                    except Exception as e:  # report and go on with the others
                        print(f"  {client} {w['id']}: FAILED ({e})", flush=True)
                        continue
                    out["idle_cpu_us_per_s"] = [x * 1e6 for x in cl.idle_cpu_per_s]
                    results.setdefault(w["id"], {}).setdefault(client, []).append(out)
                    per = ", ".join(f":{x['port']} {x['share']:.0%} {x['redis_cpu_us_per_item']:.1f}µs"
                                    for x in out["nodes"] if x["items"])
                    print(f"  run {run + 1} {client:14s} {w['id']} {out['rate']:,.0f} items/s; per primary "
                          f"(share, Redis CPU/item): {per}  ({time.time() - t0:.1f} s)", flush=True)
    finally:
        cl.stop()
    return [w["id"] for w in chosen]


def summarize(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return dict(median=statistics.median(values), min=min(values), max=max(values))


def rows(w, res):
    """The report's rows of partitioned workload `w` (one per client)."""
    out = []
    for client, runs in res.items():
        mid = sorted(runs, key=lambda r: r["rate"])[len(runs) // 2]
        row = dict(workload=w["id"], title=w["title"], kind="partitioned", client=client, leaseq=True,
                   n=runs[0]["items"], runs=len(runs), partitions=w["partitions"],
                   nodes=mid["nodes"], primaries_serving=mid["primaries_serving"],
                   commands_per_item=mid["commands_per_item"])
        for k in ("rate", "redis_cpu_us_per_item", "max_primary_cpu_us_per_item", "share_max_min",
                  "client_cpu_us_per_item"):
            s = summarize([r.get(k) for r in runs])
            if s:
                row[k] = s
        # Each primary's CPU per item it served, median over the runs (a primary keeps its port
        # through a cluster's runs).
        ports = [x["port"] for x in runs[0]["nodes"]]
        row["per_primary_cpu_us_per_item"] = {
            p: summarize([next(x["redis_cpu_us_per_item"] for x in r["nodes"] if x["port"] == p) for r in runs])
            for p in ports}
        out.append(row)
    return out


def print_section(rows_):
    mine = [r for r in rows_ if r["kind"] == "partitioned"]
    if not mine:
        return
    print()
    print("Partitioned queues (issue 27): Rust runner (Worker::partitioned), concurrency 50 (_c150, _c300: 50 per partition),")
    print(f"no-op handler, on a cluster of {PRIMARIES} primaries; per primary: share of the items it served, Redis CPU (INFO cpu)")
    print("per item it served")
    print()
    head = f"{'workload':20s} {'items/s':>9s}  {'min-max':19s} {'max/min':>7s} {'cmd/it':>6s} {'client µs':>9s}  per primary: share, Redis µs/item (median)"
    print(head)
    print("-" * len(head))
    for r in mine:
        per = "  ".join(
            f":{x['port']} {x['share']:4.0%} " + (f"{r['per_primary_cpu_us_per_item'][x['port']]['median']:5.1f}"
                                                  if r["per_primary_cpu_us_per_item"].get(x["port"]) else "    -")
            for x in r["nodes"])
        mm = f"{r['share_max_min']['median']:7.3f}" if r["primaries_serving"] > 1 else f"{'-':>7s}"
        cl = f"{r['client_cpu_us_per_item']['median']:9.1f}" if "client_cpu_us_per_item" in r else f"{'-':>9s}"
        print(f"{r['workload']:20s} {r['rate']['median']:>9,.0f}  {r['rate']['min']:>9,.0f}-{r['rate']['max']:<9,.0f} "
              f"{mm} {r['commands_per_item']:6.1f} {cl}  {per}")


def targets(raw):
    """Issue 27's targets of the partitioned queue, each against P = 1 run by run."""
    out = []
    base = raw.get("partitioned_p1", {}).get("leaseq-rust")
    for p in (3, 6):
        runs = raw.get(f"partitioned_p{p}", {}).get("leaseq-rust")
        what = f"partitioned queue P = {p}, {PRIMARIES} primaries"
        if not runs:
            out.append(dict(target=f"{what}: share of items per primary, CPU per item per primary, items/s",
                            met=None, detail="not measured: partitioned_p%d did not run" % p))
            continue
        shares = [r["share_max_min"] for r in runs]
        serving = statistics.median([r["primaries_serving"] for r in runs])
        out.append(dict(target=f"{what}: every primary serves items, max/min of their shares <= 1.2",
                        met=serving == PRIMARIES and statistics.median(shares) <= 1.2,
                        share_max_min=statistics.median(shares),
                        detail=f"{serving:.0f} primaries served items; max/min {statistics.median(shares):.3f} "
                               f"(median; {min(shares):.3f}-{max(shares):.3f}), need <= 1.2"))
        if not base:
            out.append(dict(target=f"{what}: against P = 1", met=None, detail="not measured: partitioned_p1 did not run"))
            continue
        # Each primary's CPU per item against the one-partition queue's (its one serving
        # primary), run by run; the worst primary of each run counts.
        ratios = [r["max_primary_cpu_us_per_item"] / b["max_primary_cpu_us_per_item"] for r, b in zip(runs, base)]
        ratio = statistics.median(ratios)
        per = {}
        for r in runs:
            for x in r["nodes"]:
                if x["redis_cpu_us_per_item"] is not None:
                    per.setdefault(x["port"], []).append(x["redis_cpu_us_per_item"])
        b1 = statistics.median(b["max_primary_cpu_us_per_item"] for b in base)
        out.append(dict(target=f"{what}: Redis CPU per item on each primary within 10% of the one-partition queue's",
                        met=ratio <= 1.10, ratio=ratio, ratios=ratios,
                        detail=f"per primary {', '.join(f':{k} {statistics.median(v):.1f}' for k, v in per.items())} "
                               f"µs/item vs P = 1 {b1:.1f}; worst primary run by run {ratio:.2f}x (median; "
                               f"{min(ratios):.2f}-{max(ratios):.2f}), need <= 1.10x"))
        rr = [r["rate"] / b["rate"] for r, b in zip(runs, base)]
        out.append(dict(target=f"{what}: items/s against P = 1 (one client process on a 2-core machine: "
                               f"see bench/README.md for capacity)", met="info", ratio=statistics.median(rr),
                        detail=f"{statistics.median(r['rate'] for r in runs):,.0f}/s vs "
                               f"{statistics.median(b['rate'] for b in base):,.0f}/s, run by run "
                               f"{statistics.median(rr):.2f}x (median; {min(rr):.2f}-{max(rr):.2f})"))
    # 50 slots per partition: the same load depth per partition as P = 1's (measured, not held).
    for wid, p in (("partitioned_p3_c150", 3), ("partitioned_p6_c300", 6)):
        runs = raw.get(wid, {}).get("leaseq-rust")
        name = f"partitioned queue P = {p}, runner concurrency {50 * p} (50 per partition): Redis CPU per item per primary against P = 1"
        if not runs or not base:
            out.append(dict(target=name, met=None, detail=f"not measured: {wid} or partitioned_p1 did not run"))
            continue
        ratios = [r["max_primary_cpu_us_per_item"] / b["max_primary_cpu_us_per_item"] for r, b in zip(runs, base)]
        calls = [sum(x["commands"].get("fcall", 0) * x["items"] for x in r["nodes"]) / r["items"] for r in runs]
        calls1 = [sum(x["commands"].get("fcall", 0) * x["items"] for x in b["nodes"]) / b["items"] for b in base]
        out.append(dict(target=name, met="info", ratio=statistics.median(ratios),
                        detail=f"worst primary {statistics.median(r['max_primary_cpu_us_per_item'] for r in runs):.1f} µs/item "
                               f"vs {statistics.median(b['max_primary_cpu_us_per_item'] for b in base):.1f}, run by run "
                               f"{statistics.median(ratios):.2f}x; script calls per item {statistics.median(calls):.3f} vs "
                               f"{statistics.median(calls1):.3f}; {statistics.median(r['rate'] for r in runs):,.0f} items/s"))
    return out
