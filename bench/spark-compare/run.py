#!/usr/bin/env python3
"""Tide beside Spark 3.5 on YARN, on one multi-process cluster (cluster/tide-cluster); issue 35.

    bench/spark-compare/run.py workload=wordcount [reps=3] [scale=256m] [keep=false]
    workload: wordcount | sort | kmeans | interactive | stream

Starts the cluster (NameNode, DataNode, ResourceManager, 3 NodeManagers as separate JVMs, Tide
installed from the dist tarball), generates the workload's input once, runs a small unreported
warm-up of each engine, then `reps` alternated pairs (Tide first in odd repetitions, Spark first
in even ones), checks every output against an independent computation (numpy, here), reads each
application's report from the ResourceManager and its containers' grant and release from the
ResourceManager's log and the engines' event logs, appends the rows to
target/results/<workload>.jsonl, writes target/results/<workload>-timeline.svg and prints the
table. Stops the cluster at the end (keep=true leaves it up). Exit 1 when a run failed or an
output was wrong.
"""
import datetime
import glob
import json
import os
import pickle
import re
import shutil
import subprocess
import sys
import time
import urllib.request

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
TARGET = os.path.join(HERE, "target")
RUN = os.path.join(TARGET, "cluster")
RESULTS = os.path.join(TARGET, "results")
DATA = os.path.join(TARGET, "data")
TARBALL = os.path.join(REPO, "dist", "target", "tide-0.1.0-SNAPSHOT-bin.tar.gz")
CLUSTER = os.path.join(REPO, "cluster", "tide-cluster")
RM = "http://127.0.0.1:19088"

# The same executors for both engines (README "Method").
EXECUTOR_HEAP = "768m"
EXECUTOR_OVERHEAD_MB = 384
DRIVER_HEAP = "512m"
DRIVER_OVERHEAD_MB = 384
CORES = 1
MAX_EXECUTORS = 4
IDLE_TIMEOUT = "10s"
JAVA_OPTS = "-XX:+UseSerialGC"


def log(msg):
    print("[bench] %s %s" % (datetime.datetime.utcnow().strftime("%H:%M:%S"), msg), flush=True)


def sh(cmd, env=None, check=True, capture=True, timeout=900):
    r = subprocess.run(cmd, shell=isinstance(cmd, str), env=env, timeout=timeout,
                       stdout=subprocess.PIPE if capture else None,
                       stderr=subprocess.STDOUT if capture else None, text=True)
    if check and r.returncode != 0:
        raise RuntimeError("command failed (%d): %s\n%s" % (r.returncode, cmd, (r.stdout or "")[-3000:]))
    return r


def load_average():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


# --- the cluster ---------------------------------------------------------------------------------

def cluster_env():
    env = dict(os.environ)
    env["TIDE_CLUSTER_DIR"] = RUN
    out = sh([CLUSTER, "env"], env=env).stdout
    for m in re.finditer(r"export (\w+)='([^']*)'(:\"\$PATH\")?", out):
        env[m.group(1)] = m.group(2) + (":" + env["PATH"] if m.group(3) else "")
    return env


def start_cluster():
    env = dict(os.environ, TIDE_CLUSTER_DIR=RUN)
    log("starting the cluster in %s" % RUN)
    sh([CLUSTER, "start", "--tarball", TARBALL], env=env, timeout=300)
    return cluster_env()


def stop_cluster():
    sh([CLUSTER, "stop"], env=dict(os.environ, TIDE_CLUSTER_DIR=RUN), check=False, timeout=120)


def hdfs(env, *args, check=True):
    return sh(["hdfs", "dfs"] + list(args), env=env, check=check)


def rm_get(path):
    with urllib.request.urlopen(RM + path, timeout=10) as r:
        return json.load(r)


def app_ids():
    apps = rm_get("/ws/v1/cluster/apps").get("apps") or {}
    return {a["id"] for a in apps.get("app") or []}


def app_report(app_id):
    """The RM's report once the application ended and its usage stopped changing for 1 s."""
    last = None
    deadline = time.time() + 60
    while time.time() < deadline:
        a = rm_get("/ws/v1/cluster/apps/" + app_id)["app"]
        if a["state"] in ("FINISHED", "FAILED", "KILLED"):
            key = (a["vcoreSeconds"], a["memorySeconds"])
            if last == key:
                return a
            last = key
        time.sleep(1)
    return a


# --- containers: grant and release from the RM's log; executors from the engines' event logs ---

RM_LINE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) .*?(container_\d+_(\d+)_\d+_(\d+)) "
                     r"Container Transitioned from (\w+) to (\w+)")


def parse_ts(text):
    return datetime.datetime.strptime(text, "%Y-%m-%d %H:%M:%S,%f").replace(
        tzinfo=datetime.timezone.utc).timestamp()


def rm_containers(app_id):
    """{container: [grant, release]} of the application's executor containers (not the AM's)."""
    seq = app_id.split("_")[-1]
    spans = {}
    with open(os.path.join(RUN, "logs", "resourcemanager.log"), errors="replace") as f:
        for line in f:
            m = RM_LINE.match(line)
            if not m or int(m.group(3)) != int(seq) or int(m.group(4)) == 1:
                continue
            t = parse_ts(m.group(1))
            c = m.group(2)
            if m.group(6) == "ALLOCATED":
                spans.setdefault(c, [t, None])
            elif m.group(6) in ("COMPLETED", "RELEASED", "KILLED", "EXPIRED") and c in spans:
                if spans[c][1] is None:
                    spans[c][1] = t
    return spans


def executor_figures(spans, end):
    """executor-seconds (grant to release) and the peak of executors held at once."""
    total = 0.0
    points = []
    for grant, release in spans.values():
        release = release or end
        total += release - grant
        points += [(grant, 1), (release, -1)]
    peak = cur = 0
    for _, d in sorted(points, key=lambda p: (p[0], p[1])):
        cur += d
        peak = max(peak, cur)
    return total, peak


def tide_event_spans(app_id):
    """Tide's event log: each executor's container from containerAllocated to containerCompleted."""
    path = os.path.join(RUN, "events", "tide", app_id + ".events")
    spans = {}
    end = None
    if not os.path.exists(path):
        return spans
    with open(path) as f:
        for line in f:
            try:
                e = json.loads(line)
            except ValueError:
                continue
            t = e.get("time", 0) / 1000.0
            end = t
            if e.get("event") == "containerAllocated":
                spans.setdefault(e["container"], [t, None])
            elif e.get("event") in ("containerCompleted", "containerReleased") and e.get("container") in spans:
                if spans[e["container"]][1] is None:
                    spans[e["container"]][1] = t
    for s in spans.values():
        s[1] = s[1] or end
    return spans


def spark_event_spans(app_id):
    """Spark's event log: each executor from SparkListenerExecutorAdded to ...Removed (or the end)."""
    paths = glob.glob(os.path.join(RUN, "events", "spark", app_id + "*"))
    spans = {}
    end = None
    for path in paths:
        with open(path) as f:
            for line in f:
                e = json.loads(line)
                kind = e.get("Event")
                if kind == "SparkListenerExecutorAdded":
                    spans[e["Executor ID"]] = [e["Timestamp"] / 1000.0, None]
                elif kind == "SparkListenerExecutorRemoved" and e["Executor ID"] in spans:
                    spans[e["Executor ID"]][1] = e["Timestamp"] / 1000.0
                elif kind == "SparkListenerApplicationEnd":
                    end = e["Timestamp"] / 1000.0
    for s in spans.values():
        s[1] = s[1] or end
    return spans


# --- the engines -------------------------------------------------------------------------------

def spark_classpath():
    with open(os.path.join(TARGET, "spark-classpath.txt")) as f:
        return [p for p in f.read().strip().split(":") if p]


def bench_jar():
    return glob.glob(os.path.join(TARGET, "tide-bench-spark-compare-*.jar"))[0]


def tide_settings(extra):
    s = {
        "tide.executor.memory": EXECUTOR_HEAP,
        "tide.executor.memoryOverhead": "%dm" % EXECUTOR_OVERHEAD_MB,
        "tide.executor.cores": str(CORES),
        "tide.executor.javaOpts": JAVA_OPTS,
        "tide.am.memory": DRIVER_HEAP,
        "tide.am.memoryOverhead": "%dm" % DRIVER_OVERHEAD_MB,
        "tide.am.javaOpts": JAVA_OPTS,
        "tide.dynamicAllocation.maxExecutors": str(MAX_EXECUTORS),
        "tide.dynamicAllocation.executorIdleTimeout": IDLE_TIMEOUT,
        "tide.eventLog.dir": "file://" + os.path.join(RUN, "events", "tide"),
    }
    s.update(extra)
    return s


def spark_settings(extra):
    s = {
        "spark.yarn.jars": ",".join("local:" + p for p in spark_classpath()),
        "spark.yarn.populateHadoopClasspath": "false",
        "spark.executor.memory": EXECUTOR_HEAP,
        "spark.executor.memoryOverhead": "%dm" % EXECUTOR_OVERHEAD_MB,
        "spark.executor.cores": str(CORES),
        "spark.executor.extraJavaOptions": JAVA_OPTS,
        "spark.driver.memory": DRIVER_HEAP,
        "spark.driver.memoryOverhead": "%dm" % DRIVER_OVERHEAD_MB,
        "spark.driver.cores": "1",
        "spark.driver.extraJavaOptions": JAVA_OPTS,
        "spark.dynamicAllocation.enabled": "true",
        "spark.dynamicAllocation.shuffleTracking.enabled": "true",
        "spark.shuffle.service.enabled": "false",
        "spark.dynamicAllocation.minExecutors": "0",
        "spark.dynamicAllocation.initialExecutors": "0",
        "spark.dynamicAllocation.maxExecutors": str(MAX_EXECUTORS),
        "spark.dynamicAllocation.executorIdleTimeout": IDLE_TIMEOUT,
        "spark.yarn.maxAppAttempts": "1",
        "spark.eventLog.enabled": "true",
        "spark.eventLog.dir": "file://" + os.path.join(RUN, "events", "spark"),
        "spark.speculation": "false",
        # Spark's UI needs Hadoop's AmIpFilter, which is not in hadoop-client-api/runtime: with
        # spark.yarn.populateHadoopClasspath=false the driver fails to start with it on.
        "spark.ui.enabled": "false",
    }
    s.update(extra)
    return s


def run_engine(env, engine, label, tide_job, tide_args, spark_class, spark_args,
               tide_extra=None, spark_extra=None, timeout=600):
    """Submits one application and waits for it; returns the row (without the check)."""
    before = app_ids()
    load_before = load_average()
    t0 = time.time()
    if engine == "Tide":
        cmd = [os.path.join(env["TIDE_HOME"], "bin", "tide")]
        if tide_job.startswith("dev."):
            cmd += ["--jar", bench_jar()]
        for k, v in tide_settings(tide_extra or {}).items():
            cmd += ["-D", "%s=%s" % (k, v)]
        cmd += [tide_job] + tide_args
        run_env = env
    else:
        cmd = ["java", "-Xmx512m", JAVA_OPTS, "-cp",
               ":".join([env["HADOOP_CONF_DIR"], bench_jar()] + spark_classpath()),
               "org.apache.spark.deploy.SparkSubmit", "--master", "yarn",
               "--deploy-mode", "cluster", "--class", "dev.tide.bench.sparkcompare." + spark_class]
        for k, v in spark_settings(spark_extra or {}).items():
            cmd += ["--conf", "%s=%s" % (k, v)]
        cmd += [bench_jar()] + spark_args
        run_env = dict(env, SPARK_HOME=TARGET)
    r = sh(cmd, env=run_env, check=False, timeout=timeout)
    client_wall = time.time() - t0
    new = sorted(app_ids() - before)
    if len(new) != 1:
        raise RuntimeError("%s %s: expected one new application, found %s\n%s"
                           % (engine, label, new, r.stdout[-3000:]))
    app_id = new[0]
    with open(os.path.join(RESULTS, "%s-%s.log" % (app_id, engine)), "w") as f:
        f.write(r.stdout)
    rep = app_report(app_id)
    spans = rm_containers(app_id)
    end = rep["finishedTime"] / 1000.0
    exec_s, peak = executor_figures(spans, end)
    ev = tide_event_spans(app_id) if engine == "Tide" else spark_event_spans(app_id)
    ev_s, ev_peak = executor_figures(ev, end)
    row = {
        "engine": engine, "label": label, "app": app_id, "exit": r.returncode,
        "final": rep["finalStatus"], "clientWallS": round(client_wall, 2),
        "wallS": round((rep["finishedTime"] - rep["startedTime"]) / 1000.0, 2),
        "vcoreS": rep["vcoreSeconds"], "mbS": rep["memorySeconds"],
        "executorS": round(exec_s, 1), "peak": peak,
        "eventLogExecutorS": round(ev_s, 1), "eventLogPeak": ev_peak,
        "loadBefore": load_before, "loadAfter": load_average(),
        "startedMs": rep["startedTime"], "containers": spans,
    }
    log("%s %s %s: %s in %.1f s (RM), %d vcore-s, %d MB-s, %.1f executor-s, peak %d"
        % (engine, label, app_id, rep["finalStatus"], row["wallS"], row["vcoreS"], row["mbS"],
           row["executorS"], peak))
    return row


# --- inputs and their independent checks ---------------------------------------------------

def parse_size(text):
    m = re.fullmatch(r"(\d+)([kmg]?)", text.lower())
    return int(m.group(1)) * {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[m.group(2)]


def put_dir(env, local_dir, hdfs_dir, block_bytes):
    hdfs(env, "-mkdir", "-p", os.path.dirname(hdfs_dir) or "/")
    hdfs(env, "-D", "dfs.blocksize=%d" % block_bytes, "-put", local_dir, hdfs_dir)


def text_input(env, name, total_bytes, file_bytes, seed):
    """Skewed-vocabulary text (10 words a line) in files of ~file_bytes; returns the counts."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    vocab = []
    seen = set()
    while len(vocab) < 5000:
        w = "".join(rng.choice(letters, size=int(rng.integers(3, 11))))
        if w not in seen:
            seen.add(w)
            vocab.append(w)
    weights = 1.0 / np.arange(1, len(vocab) + 1) ** 0.8
    weights /= weights.sum()
    sp = np.array([w + " " for w in vocab], dtype=object)
    nl = np.array([w + "\n" for w in vocab], dtype=object)
    mean_len = float(np.dot(weights, [len(w) + 1 for w in vocab]))
    words_per_file = int(file_bytes / mean_len) // 10 * 10
    files = max(1, round(total_bytes / file_bytes))
    local = os.path.join(DATA, name)
    shutil.rmtree(local, ignore_errors=True)
    os.makedirs(local)
    counts = np.zeros(len(vocab), dtype=np.int64)
    for i in range(files):
        idx = rng.choice(len(vocab), size=words_per_file, p=weights)
        counts += np.bincount(idx, minlength=len(vocab))
        pos = np.arange(words_per_file)
        tokens = np.where(pos % 10 == 9, nl[idx], sp[idx])
        with open(os.path.join(local, "part-%05d" % i), "w") as f:
            f.write("".join(tokens))
    put_dir(env, local, "/in/" + name, 2 * file_bytes)
    size = sum(os.path.getsize(p) for p in glob.glob(local + "/*"))
    shutil.rmtree(local)
    return {vocab[i]: int(c) for i, c in enumerate(counts) if c}, size, files


def read_counts(env, out):
    text = hdfs(env, "-cat", out + "/part-*").stdout
    counts = {}
    for line in text.splitlines():
        if line:
            w, c = line.rsplit("\t", 1)
            if w in counts:
                return None, "word %r written twice" % w
            counts[w] = int(c)
    return counts, None


def checked(fn):
    """A check that reports its own failure (a missing output ...) as the run's result."""
    def wrapper(*args):
        try:
            return fn(*args)
        except Exception as e:  # noqa: BLE001 - the row says what went wrong
            return "check failed: %s" % str(e).splitlines()[0][:200]
    return wrapper


@checked
def check_counts(env, out, expected):
    got, err = read_counts(env, out)
    if err:
        return err
    if got == expected:
        return "ok"
    missing = [w for w in expected if got.get(w) != expected[w]]
    return "%d of %d words differ (e.g. %r: %s vs %s)" % (
        len(missing) + len(set(got) - set(expected)), len(expected), missing[:1],
        got.get(missing[0]) if missing else None, expected.get(missing[0]) if missing else None)


def tera_input(env, name, total_bytes, file_bytes, seed):
    """TeraGen-format records (100 bytes: 10-byte random key, 90-byte value); returns them sorted."""
    rng = np.random.default_rng(seed)
    per_file = file_bytes // 100
    files = max(1, round(total_bytes / file_bytes))
    local = os.path.join(DATA, name)
    shutil.rmtree(local, ignore_errors=True)
    os.makedirs(local)
    all_records = []
    for i in range(files):
        rec = np.empty((per_file, 100), dtype=np.uint8)
        rec[:, :10] = rng.integers(0, 256, size=(per_file, 10), dtype=np.uint8)
        # TeraGen's value: the row id in hex, then filler letters, then \r\n
        rec[:, 10:] = rng.integers(ord("A"), ord("Z") + 1, size=(per_file, 90), dtype=np.uint8)
        rec[:, 98] = ord("\r")
        rec[:, 99] = ord("\n")
        rec.tofile(os.path.join(local, "part-%05d" % i))
        all_records.append(rec)
    put_dir(env, local, "/in/" + name, 2 * file_bytes)
    shutil.rmtree(local)
    records = np.concatenate(all_records)
    keys = records[:, :10].copy().view("S10").ravel()
    order = np.argsort(keys, kind="stable")
    return records[order], records.nbytes, files


@checked
def check_sorted(env, out, expected):
    listing = hdfs(env, "-ls", out).stdout
    parts = sorted(re.findall(r"(\S*/part-[^\s]+)$", listing, re.M))
    if not re.search(r"/_SUCCESS$", listing, re.M):
        return "no _SUCCESS"
    local = os.path.join(DATA, "sorted-out")
    shutil.rmtree(local, ignore_errors=True)
    os.makedirs(local)
    sh(["hdfs", "dfs", "-get"] + parts + [local], env=env)
    data = b"".join(open(os.path.join(local, os.path.basename(p)), "rb").read() for p in parts)
    shutil.rmtree(local)
    if len(data) != expected.nbytes:
        return "%d bytes written, %d expected" % (len(data), expected.nbytes)
    got = np.frombuffer(data, dtype=np.uint8).reshape(-1, 100)
    if not np.array_equal(got, expected):
        bad = int(np.argmax(np.any(got != expected, axis=1)))
        return "record %d differs from the sorted input" % bad
    return "ok"


def points_input(env, name, points, files, k, seed):
    """2-D points around k centres, one 'x,y' line each; returns the parsed points in file order."""
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-100, 100, size=(k, 2))
    local = os.path.join(DATA, name)
    shutil.rmtree(local, ignore_errors=True)
    os.makedirs(local)
    per = points // files
    arrays = []
    for i in range(files):
        which = rng.integers(0, k, size=per)
        p = np.round(centres[which] + rng.normal(0, 8, size=(per, 2)), 4)
        with open(os.path.join(local, "part-%05d" % i), "w") as f:
            f.write("".join("%r,%r\n" % (float(x), float(y)) for x, y in p))
        arrays.append(np.loadtxt(os.path.join(local, "part-%05d" % i), delimiter=","))
    size = sum(os.path.getsize(p) for p in glob.glob(local + "/*"))
    put_dir(env, local, "/in/" + name, 64 << 20)
    shutil.rmtree(local)
    return np.concatenate(arrays), size


def lloyd(points, k, rounds):
    """k-means as both engines define it: first k distinct points, ties to the lower index."""
    centres = []
    seen = set()
    for p in points:
        t = (float(p[0]), float(p[1]))
        if t not in seen:
            seen.add(t)
            centres.append(p.copy())
        if len(centres) == k:
            break
    c = np.array(centres)
    for _ in range(rounds):
        d = ((points[:, None, :] - c[None, :, :]) ** 2).sum(axis=2)
        a = np.argmin(d, axis=1)
        for j in range(k):
            sel = points[a == j]
            if len(sel):
                c[j] = sel.mean(axis=0)
    return c


@checked
def check_centres(env, out, expected):
    text = hdfs(env, "-cat", out + "/part-*").stdout
    got = {}
    for line in text.splitlines():
        if line.strip():
            i, xy = line.split("\t")
            got[int(i)] = [float(v) for v in xy.split(",")]
    if sorted(got) != list(range(len(expected))):
        return "centres %s written, %d expected" % (sorted(got), len(expected))
    err = max(abs(got[i][d] - expected[i][d]) for i in got for d in range(2))
    return "ok" if err < 1e-6 else "centres differ by up to %g" % err


# --- the workloads ---------------------------------------------------------------------------

class Workload:
    def __init__(self, env, opts):
        self.env = env
        self.opts = opts
        self.n = 0

    def out(self, engine):
        self.n += 1
        return "/out/%s-%s-%d" % (self.name, engine.lower(), self.n)


class WordCount(Workload):
    name = "wordcount"

    def prepare(self):
        scale = parse_size(self.opts.get("scale", "256m"))
        self.reducers = 4
        self.warm, _, _ = text_input(self.env, "wc-warm", 8 << 20, 4 << 20, 1)
        self.expected, self.bytes, self.files = text_input(self.env, "wc", scale, 16 << 20, 2)
        return "%d MiB of text in %d files of 16 MiB (one HDFS block each)" % (self.bytes >> 20, self.files)

    def run(self, engine, warm=False):
        src = "/in/wc-warm" if warm else "/in/wc"
        out = self.out(engine)
        row = run_engine(self.env, engine, "warm-up" if warm else "measured", "wordcount",
                         [src, out], "SparkWordCount", [src, out, str(self.reducers)],
                         tide_extra={"tide.wordcount.reducers": str(self.reducers)})
        row["check"] = check_counts(self.env, out, self.warm if warm else self.expected)
        return row


class Sort(Workload):
    name = "sort"

    def prepare(self):
        scale = parse_size(self.opts.get("scale", "256m"))
        self.reducers = 8
        self.warm, _, _ = tera_input(self.env, "tera-warm", 4 << 20, 2 << 20, 3)
        file_bytes = 16_000_000
        self.expected, self.bytes, self.files = tera_input(self.env, "tera", scale, file_bytes, 4)
        return "%d records (%d MiB) in %d files of 16 MB (one HDFS block each)" % (
            len(self.expected), self.bytes >> 20, self.files)

    def run(self, engine, warm=False):
        src = "/in/tera-warm" if warm else "/in/tera"
        out = self.out(engine)
        row = run_engine(self.env, engine, "warm-up" if warm else "measured", "sort", [src, out],
                         "SparkSort", [src, out, str(self.reducers)],
                         tide_extra={"tide.sort.reducers": str(self.reducers)})
        row["check"] = check_sorted(self.env, out, self.warm if warm else self.expected)
        return row


class KMeans(Workload):
    name = "kmeans"
    K = 5
    ROUNDS = 10

    def prepare(self):
        n = int(self.opts.get("points", "2000000"))
        self.warm_points, _ = points_input(self.env, "km-warm", 20000, 2, self.K, 5)
        self.points, self.bytes = points_input(self.env, "km", n, 8, self.K, 6)
        self.warm = lloyd(self.warm_points, self.K, 2)
        self.expected = lloyd(self.points, self.K, self.ROUNDS)
        return "%d 2-D points (%d MiB of text) in 8 files, k=%d, %d rounds" % (
            len(self.points), self.bytes >> 20, self.K, self.ROUNDS)

    def run(self, engine, warm=False):
        src = "/in/km-warm" if warm else "/in/km"
        rounds = "2" if warm else str(self.ROUNDS)
        out = self.out(engine)
        row = run_engine(self.env, engine, "warm-up" if warm else "measured", "kmeans",
                         [src, str(self.K), rounds, out], "SparkKMeans",
                         [src, str(self.K), rounds, out])
        row["check"] = check_centres(self.env, out, self.warm if warm else self.expected)
        return row


class Interactive(Workload):
    name = "interactive"

    def prepare(self):
        self.bursts = int(self.opts.get("bursts", "3"))
        self.jobs = int(self.opts.get("jobs", "3"))
        self.gap = int(self.opts.get("gap", "25"))
        self.lead = int(self.opts.get("lead", "8"))
        self.expected, self.bytes, self.files = text_input(self.env, "ia", 16 << 20, 4 << 20, 7)
        return ("%d bursts of %d wordcount jobs over %d MiB in %d files (%d tasks a job), idle gaps"
                " of %d s (idle timeout %s)%s" % (
                    self.bursts, self.jobs, self.bytes >> 20, self.files, self.files, self.gap,
                    IDLE_TIMEOUT, "; Tide+expect announces each later burst %d s ahead"
                    % self.lead))

    def run(self, engine, warm=False):
        out = self.out(engine.replace("+", "-"))
        bursts, jobs, gap = (1, 1, 1) if warm else (self.bursts, self.jobs, self.gap)
        args = ["/in/ia", out, str(bursts), str(jobs), str(gap)]
        expecting = engine == "Tide+expect" and not warm
        tide_args = args + ([str(self.lead)] if expecting else [])
        row = run_engine(self.env, engine.split("+")[0], "warm-up" if warm else "measured",
                         "dev.tide.bench.sparkcompare.TideInteractive", tide_args,
                         "SparkInteractive", args)
        row["engine"] = engine
        checks = [check_counts(self.env, "%s/burst-%d-job-%d" % (out, b, j), self.expected)
                  for b in range(bursts) for j in range(jobs)]
        bad = [c for c in checks if c != "ok"]
        row["check"] = "ok" if not bad else "%d of %d jobs wrong: %s" % (len(bad), len(checks), bad[0])
        lat = hdfs(self.env, "-cat", out + "/latencies", check=False).stdout
        ms = [int(l.split("\t")[2]) for l in lat.splitlines() if l.count("\t") == 2]
        row["jobLatenciesMs"] = ms
        row["meanJobS"] = round(sum(ms) / len(ms) / 1000.0, 2) if ms else None
        if len(ms) != bursts * jobs:
            row["check"] = "latencies of %d jobs, %d expected" % (len(ms), bursts * jobs)
        return row


class Stream(Workload):
    """e: a micro-batch stream with a 4x rate step; both engines' batches checked for coverage."""
    name = "stream"
    INTERVAL = 5
    SPLITS = 8

    def prepare(self):
        self.stop_after = int(self.opts.get("seconds", "240"))
        self.step_at = int(self.opts.get("stepAt", str(self.stop_after * 3 // 8)))
        self.low = int(self.opts.get("rate", "200"))
        self.cost_us = int(self.opts.get("costMicros", "2000"))
        return ("%d s of a rate source at %d records/s, then %d from %d s (4x), %d ms a record"
                " (asleep), %d s batches of %d map tasks and 1 reduce" % (
                    self.stop_after, self.low, 4 * self.low, self.step_at, self.cost_us // 1000,
                    self.INTERVAL, self.SPLITS))

    def run(self, engine, warm=False):
        out = self.out(engine)
        seconds = 20 if warm else self.stop_after
        step_at = 10 if warm else self.step_at
        tide_extra = {
            "tide.streaming.batchInterval": "%ds" % self.INTERVAL,
            "tide.streaming.stopAfter": "%ds" % seconds,
            "tide.streaming.rate.schedule": "%d@0s,%d@%ds" % (self.low, 4 * self.low, step_at),
            "tide.streaming.rate.cost": "%dus" % self.cost_us,
            "tide.streaming.rate.spin": "false",
            "tide.streaming.rate.splits": str(self.SPLITS),
            "tide.streaming.dynamicAllocation.enabled": "true",
            "tide.streaming.dynamicAllocation.policy": "proportional",
            "tide.streaming.dynamicAllocation.maxExecutors": str(MAX_EXECUTORS),
        }
        spark_extra = {
            "spark.dynamicAllocation.enabled": "false",
            "spark.dynamicAllocation.shuffleTracking.enabled": "false",
            "spark.streaming.dynamicAllocation.enabled": "true",
            "spark.streaming.dynamicAllocation.minExecutors": "1",
            "spark.streaming.dynamicAllocation.maxExecutors": str(MAX_EXECUTORS),
        }
        row = run_engine(self.env, engine, "warm-up" if warm else "measured", "stream-rate",
                         [out], "SparkRateStream",
                         [out, str(self.INTERVAL), str(seconds),
                          "%d@0,%d@%d" % (self.low, 4 * self.low, step_at), str(self.cost_us),
                          str(self.SPLITS)], tide_extra=tide_extra, spark_extra=spark_extra,
                         timeout=seconds + 600)  # a client waits for the whole stream
        row["check"], row["records"] = check_ranges(self.env, out)
        batches = tide_batches(row["app"]) if engine == "Tide" else spark_batches(self.env, out)
        interval_ms = self.INTERVAL * 1000
        if batches:
            row["batches"] = len(batches)
            row["meanProcessingMs"] = round(float(np.mean([b[0] for b in batches])))
            row["meanSchedulingDelayMs"] = round(float(np.mean([b[1] for b in batches])))
            row["maxSchedulingDelayMs"] = max(b[1] for b in batches)
            row["delayedBatches"] = sum(1 for p, d in batches if p > interval_ms or d > interval_ms // 10)
        return row


@checked
def check_ranges_inner(env, out):
    text = hdfs(env, "-cat", out + "/batch-*/part-*").stdout
    ranges = sorted(tuple(int(v) for v in l.split("\t")) for l in text.splitlines() if l.strip())
    end = 0
    for first, stop in ranges:
        if first != end:
            return "ids %d..%d missing or repeated" % (min(first, end), max(first, end))
        end = stop
    return "ok:%d" % end


def check_ranges(env, out):
    """Every id from 0 to the last processed exactly once, over all batches."""
    r = check_ranges_inner(env, out)
    return ("ok", int(r[3:])) if r.startswith("ok:") else (r, None)


def tide_batches(app_id):
    """(processingMs, schedulingDelayMs) of each completed batch, from Tide's event log."""
    path = os.path.join(RUN, "events", "tide", app_id + ".events")
    rows = []
    for line in open(path):
        e = json.loads(line)
        if e.get("event") == "batchCompleted":
            rows.append((int(e["processingMs"]), int(e["schedulingDelayMs"])))
    return rows


def spark_batches(env, out):
    """(processingMs, schedulingDelayMs) of each completed batch, from the driver's listener."""
    text = hdfs(env, "-cat", out + "/batches", check=False).stdout
    return [(int(f[2]), int(f[3])) for f in (l.split("\t") for l in text.splitlines())
            if len(f) == 4]


WORKLOADS = {w.name: w for w in (WordCount, Sort, KMeans, Interactive, Stream)}


# --- the chart -------------------------------------------------------------------------------

def timeline_svg(rows, path, title):
    """Executors held (grant to release, from the RM's log) over time since each app's start."""
    colours = {"Tide": "#1f77b4", "Spark": "#d62728", "Tide+expect": "#2ca02c"}
    series = []
    for r in rows:
        t0 = r["startedMs"] / 1000.0
        pts = []
        for grant, release in r["containers"].values():
            pts += [(grant - t0, 1), ((release or (t0 + r["wallS"])) - t0, -1)]
        pts.sort()
        cur = 0
        steps = [(0.0, 0)]
        for t, d in pts:
            cur += d
            steps.append((t, cur))
        steps.append((max(r["wallS"], steps[-1][0]), cur))
        series.append((r["engine"], steps))
    tmax = max(max(t for t, _ in s) for _, s in series) or 1
    ymax = max(MAX_EXECUTORS, max(max(v for _, v in s) for _, s in series))
    w, h, ml, mb, mt = 760, 300, 50, 40, 30
    x = lambda t: ml + (w - ml - 20) * t / tmax
    y = lambda v: mt + (h - mt - mb) * (1 - v / ymax)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">' % (w, h),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="18">%s</text>' % (ml, title)]
    for v in range(0, ymax + 1):
        out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>' % (ml, w - 20, y(v), y(v)))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%d</text>' % (ml - 6, y(v) + 4, v))
    step = max(1, int(tmax / 10))
    for t in range(0, int(tmax) + 1, step):
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%d</text>' % (x(t), h - mb + 16, t))
    out.append('<text x="%d" y="%d" text-anchor="middle">seconds since the application started (RM)</text>' % ((w + ml) // 2, h - 6))
    out.append('<text x="14" y="%d" transform="rotate(-90 14 %d)" text-anchor="middle">executors held</text>' % (h // 2, h // 2))
    for i, (engine, steps) in enumerate(series):
        d = []
        prev = None
        for t, v in steps:
            if prev is not None:
                d.append("L%.1f,%.1f" % (x(t), y(prev)))
            d.append(("M" if prev is None else "L") + "%.1f,%.1f" % (x(t), y(v)))
            prev = v
        off = (i - 0.5) * 1.5
        out.append('<path d="%s" fill="none" stroke="%s" stroke-width="2" transform="translate(0,%.1f)"/>'
                   % (" ".join(d), colours.get(engine, "#555"), off))
        out.append('<text x="%d" y="%d" fill="%s">%s</text>' % (w - 140, mt + 14 + 16 * i, colours.get(engine, "#555"), engine))
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out))


# --- main ------------------------------------------------------------------------------------

def table(rows):
    cols = ["engine", "wallS", "meanJobS", "vcoreS", "mbS", "executorS", "eventLogExecutorS", "peak",
            "loadBefore", "check", "app"]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        lines.append("| " + " | ".join(str(r.get(c, "")) for c in cols) + " |")
    return "\n".join(lines)


def report():
    """Tables (markdown) and one allocation-timeline chart per workload from results/*.jsonl."""
    out = []
    for path in sorted(glob.glob(os.path.join(RESULTS, "*.jsonl"))):
        rows = [json.loads(l) for l in open(path) if l.strip()]
        if not rows:
            continue
        name = rows[0]["workload"]
        out.append("### %s\n\n%s\n" % (name, rows[-1]["shape"]))
        out.append("| rep | engine | app | wall s | mean job s | vcore-s | MB-s | executor-s (RM) |"
                   " executor-s (event log) | peak | load before | check |")
        out.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            out.append("| %s | %s | %s | %.1f | %s | %d | %d | %.1f | %.1f | %d | %.1f | %s |" % (
                r["rep"], r["engine"], r["app"].split("_", 1)[1], r["wallS"],
                r.get("meanJobS") or "", r["vcoreS"], r["mbS"], r["executorS"],
                r["eventLogExecutorS"], r["peak"], r["loadBefore"], r["check"]))
        if name == "stream":
            out.append("\n| rep | engine | batches | records | mean processing ms |"
                       " mean scheduling delay ms | max scheduling delay ms | delayed batches |")
            out.append("|---|---|---|---|---|---|---|---|")
            for r in rows:
                out.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    r["rep"], r["engine"], r.get("batches"), r.get("records"),
                    r.get("meanProcessingMs"), r.get("meanSchedulingDelayMs"),
                    r.get("maxSchedulingDelayMs"), r.get("delayedBatches")))
        engines = []
        for r in rows:
            if r["engine"] not in engines:
                engines.append(r["engine"])
        mean = lambda e, k: float(np.mean([r[k] for r in rows if r["engine"] == e and r.get(k) is not None]))
        out.append("\n| engine | runs | wall s | mean job s | vcore-s | MB-s | executor-s (RM) | peak |")
        out.append("|---|---|---|---|---|---|---|---|")
        for e in engines:
            n = sum(1 for r in rows if r["engine"] == e)
            jobs = "%.2f" % mean(e, "meanJobS") if rows[0].get("meanJobS") is not None else ""
            out.append("| %s | %d | %.1f | %s | %.0f | %.0f | %.1f | %.1f |" % (
                e, n, mean(e, "wallS"), jobs, mean(e, "vcoreS"), mean(e, "mbS"),
                mean(e, "executorS"), mean(e, "peak")))
        if "Spark" in engines:
            for e in [e for e in engines if e != "Spark"]:
                ratio = lambda k: mean(e, k) / mean("Spark", k)
                # ratios of each alternated pair, then their range
                pairs = []
                for rep in sorted({r["rep"] for r in rows}):
                    a = [r for r in rows if r["rep"] == rep and r["engine"] == e]
                    b = [r for r in rows if r["rep"] == rep and r["engine"] == "Spark"]
                    if a and b:
                        pairs.append(a[0]["wallS"] / b[0]["wallS"])
                jobs = (", mean job latency %.2fx" % ratio("meanJobS")
                        if rows[0].get("meanJobS") is not None else "")
                out.append("\n%s / Spark (means): wall %.2fx (pairs %s), vcore-s %.2fx, MB-s %.2fx,"
                           " executor-s %.2fx%s." % (
                               e, ratio("wallS"), ", ".join("%.2f" % p for p in pairs),
                               ratio("vcoreS"), ratio("mbS"), ratio("executorS"), jobs))
        first = {}
        for r in rows:
            first.setdefault(r["engine"], r)
        svg = "%s-timeline.svg" % name
        os.makedirs(os.path.join(HERE, "charts"), exist_ok=True)
        timeline_svg(list(first.values()), os.path.join(HERE, "charts", svg),
                     "%s: executors held (grant to release), repetition %s" % (name, rows[0]["rep"]))
        out.append("\n![%s](charts/%s)\n" % (name, svg))
    text = "\n".join(out)
    with open(os.path.join(RESULTS, "tables.md"), "w") as f:
        f.write(text + "\n")
    print(text)
    return 0


def main(argv):
    if argv[:1] == ["report"]:
        return report()
    opts = dict(a.split("=", 1) for a in argv)
    name = opts.get("workload", "wordcount")
    reps = opts.get("reps", "1-3").split("-")
    first_rep, last_rep = int(reps[0]), int(reps[-1])
    engines = opts.get("engines", "Tide,Spark").split(",")
    reuse = opts.get("cluster", "start") == "reuse"
    os.makedirs(RESULTS, exist_ok=True)
    os.makedirs(DATA, exist_ok=True)
    env = cluster_env() if reuse else start_cluster()
    for d in ("tide", "spark"):
        os.makedirs(os.path.join(RUN, "events", d), exist_ok=True)
    failed = False
    rows = []
    state = os.path.join(DATA, name + ".pickle")
    try:
        if reuse:
            with open(state, "rb") as f:
                w = pickle.load(f)
            w.env, w.opts = env, dict(w.opts, **opts)
            shape = w.shape
        else:
            w = WORKLOADS[name](env, opts)
            shape = w.shape = w.prepare()
            with open(state, "wb") as f:
                pickle.dump(w, f)
        log("%s: %s" % (name, shape))
        if opts.get("warm", "false" if reuse else "true") == "true":
            for e in [e for e in engines if "+" not in e]:
                r = w.run(e, warm=True)
                log("warm-up %s: %s" % (e, r["check"]))
        for rep in range(first_rep, last_rep + 1):
            order = engines if rep % 2 == 1 else list(reversed(engines))
            for e in order:
                r = w.run(e)
                r["rep"] = rep
                r["workload"] = name
                r["shape"] = shape
                r["tag"] = opts.get("tag", "")
                rows.append(r)
                failed |= r["check"] != "ok" or r["final"] != "SUCCEEDED"
                with open(os.path.join(RESULTS, name + ".jsonl"), "a") as f:
                    f.write(json.dumps(r) + "\n")
        with open(state, "wb") as f:
            w.env = None
            pickle.dump(w, f)
    except Exception as e:  # noqa: BLE001 - reported, and the cluster still stops
        log("error: %s" % e)
        failed = True
    finally:
        if opts.get("stop", "true") == "true":
            stop_cluster()
    print(table(rows))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
