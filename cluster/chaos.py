#!/usr/bin/env python3
"""Chaos suite for Tide on the multi-process cluster of cluster/tide-cluster.

Starts the cluster (NameNode, DataNode, ResourceManager, three NodeManagers, Tide installed from
the dist tarball), runs each scenario's job through bin/tide, injects its fault at the moment the
job's event log says the job is in the phase the scenario aims at, and checks the job's output
against the clean run of the same job. Prints (and writes to <run dir>/chaos-report.md) one table
row per scenario: when the fault was injected, the outcome, whether the output is identical, the
map reruns and the wall time against the clean run (and their ratio). Besides processes killed
and restarted, nodes leave gracefully (YARN decommission with a timeout; the map outputs they
hold are copied to nodes that stay) and YARN preempts containers between two CapacityScheduler
queues. Always stops the cluster at the end, also on Ctrl-C or SIGTERM; every wait is bounded.

    cluster/chaos.py                      # every scenario
    cluster/chaos.py --scenarios ci       # the shorter subset .ci/run runs
    cluster/chaos.py --scenarios exec-kill-map,nm-kill-shuffle --keep-cluster

Only the standard library; loopback only; processes are signalled by pid, and only processes of
this cluster (daemons from its pid files, containers whose working directory is under its run
directory).
"""
import argparse
import collections
import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLUSTER_SCRIPT = os.path.join(REPO, "cluster", "tide-cluster")
RUN = os.environ.get("TIDE_CLUSTER_DIR", os.path.join(REPO, "cluster", "target", "run"))
EVENTS_DIR = os.path.join(RUN, "events")
EVENT_NAMES_FILE = os.path.join(REPO, "docs", "event-names.txt")


def _event_names(path):
    """The event log's event names, one per line: exported from dev.tide.driver.events.EventName
    (a test keeps the file equal to the enum)."""
    try:
        with open(path, encoding="utf-8") as f:
            return {line.strip() for line in f if line.strip() and not line.startswith("#")}
    except OSError as e:
        sys.exit("chaos: cannot read the event names in %s: %s" % (path, e))


_EVENT_NAMES = _event_names(EVENT_NAMES_FILE)


def _event(name):
    """An event name this suite reads; stops at start when the event log no longer has it."""
    if name not in _EVENT_NAMES:
        sys.exit("chaos: the event %r that this suite reads is not in %s (renamed or removed in"
                 " dev.tide.driver.events.EventName?): update cluster/chaos.py" % (name, EVENT_NAMES_FILE))
    return name


JOB_START = _event("jobStart")
EXECUTOR_LAUNCHED = _event("executorLaunched")
TASK_START = _event("taskStart")
TASK_END = _event("taskEnd")
STAGE_COMPLETED = _event("stageCompleted")
CONTAINER_COMPLETED = _event("containerCompleted")
BATCH_COMPLETED = _event("batchCompleted")
BATCH_SUBMITTED = _event("batchSubmitted")
JOB_END = _event("jobEnd")
MIGRATION_STARTED = _event("migrationStarted")
MIGRATION_FINISHED = _event("migrationFinished")
MIGRATION_FAILED = _event("migrationFailed")
NODE_DECOMMISSIONING = _event("nodeDecommissioning")
NODE_LOST = _event("nodeLost")
PREEMPTION_REQUESTED = _event("preemptionRequested")
EXECUTOR_PREEMPTED = _event("executorPreempted")
EXECUTOR_REMOVED = _event("executorRemoved")
SHUFFLE_PORT_BASE = 19440  # NodeManager N serves tide_shuffle on 19440 + N
NODES = (1, 2, 3)
RM_WEB = "http://127.0.0.1:19088"


def nm_host(node):
    """NodeManager N's own loopback address (cluster/tide-cluster)."""
    return "127.0.0.%d" % (node + 1)


def rm_node_state(node):
    """The ResourceManager's state of NodeManager `node` (RUNNING, DECOMMISSIONING,
    DECOMMISSIONED, LOST, SHUTDOWN, ...), or None when it does not list it or cannot be read."""
    node_id = "%s:%d" % (nm_host(node), 19040 + node)
    try:
        with urllib.request.urlopen(RM_WEB + "/ws/v1/cluster/nodes?states=NEW,RUNNING,UNHEALTHY,"
                                    "DECOMMISSIONING,DECOMMISSIONED,LOST,REBOOTED,SHUTDOWN",
                                    timeout=3) as r:
            nodes = (json.load(r).get("nodes") or {}).get("node") or []
    except (OSError, ValueError):
        return None
    states = [n["state"] for n in nodes if n.get("id") == node_id]
    return states[0] if states else None


class ScenarioFailed(Exception):
    pass


def log(msg):
    print("[chaos %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def poll(what, predicate, timeout, interval=0.2):
    """Calls predicate until it returns something truthy; fails after timeout seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise ScenarioFailed("timed out after %ds waiting for %s" % (timeout, what))
        time.sleep(interval)


# --- the cluster -------------------------------------------------------------------------------

class Cluster:
    def __init__(self):
        self.env = dict(os.environ)
        self.env["TIDE_CLUSTER_DIR"] = RUN
        self.tide_home = os.path.join(RUN, "opt", "tide")
        self.env["HADOOP_CONF_DIR"] = os.path.join(RUN, "conf")
        self.env["PATH"] = os.path.join(RUN, "hadoop", "bin") + os.pathsep + self.env["PATH"]

    def script(self, *args, timeout=300):
        log("tide-cluster " + " ".join(args))
        t0 = time.monotonic()
        r = subprocess.run([CLUSTER_SCRIPT, *args], env=self.env, timeout=timeout)
        if r.returncode != 0:
            raise ScenarioFailed("tide-cluster %s failed (exit %d)" % (" ".join(args), r.returncode))
        return time.monotonic() - t0

    def hdfs(self, *args, timeout=120, check=True):
        r = subprocess.run(["hdfs", "dfs", *args], env=self.env, timeout=timeout,
                           capture_output=True, text=True)
        if check and r.returncode != 0:
            raise ScenarioFailed("hdfs dfs %s failed: %s" % (" ".join(args), r.stderr[-2000:]))
        return r

    def yarn(self, *args, timeout=60):
        return subprocess.run(["yarn", *args], env=self.env, timeout=timeout,
                              capture_output=True, text=True)


def proc_cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().split(b"\0")
    except OSError:
        return []


def proc_cwd(pid):
    try:
        return os.readlink("/proc/%d/cwd" % pid)
    except OSError:
        return ""


def container_jvms(app_id, main_class):
    """{pid: (node, args)} of this cluster's container JVMs of app_id running main_class."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        cwd = proc_cwd(pid)
        m = re.match(re.escape(RUN) + r"/nm(\d)/local/.*/" + re.escape(app_id) + "/", cwd + "/")
        if not m:
            continue
        args = [a.decode(errors="replace") for a in proc_cmdline(pid)]
        if main_class in args:
            found[pid] = (int(m.group(1)), args)
    return found


def executor_pids(app_id):
    """{executor id: (pid, node)} of the application's live executor JVMs."""
    out = {}
    for pid, (node, args) in container_jvms(app_id, "dev.tide.executor.ExecutorMain").items():
        if "--executor-id" in args:
            out[args[args.index("--executor-id") + 1]] = (pid, node)
    return out


def am_pid(app_id):
    found = container_jvms(app_id, "dev.tide.am.ApplicationMaster")
    return next(iter(found.items())) if found else None


def sigkill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
        return True
    except ProcessLookupError:
        return False


# --- a job and its event log -------------------------------------------------------------------

class EventLog:
    """Tails <run>/events/<app>.events (the AM writes it to this local directory). A new AM
    attempt rewrites the file: events are kept per attempt."""

    def __init__(self, path):
        self.path = path
        self.attempts = [[]]
        self.offset = 0
        self.partial = b""
        self.inode = None
        self.lock = threading.Lock()

    def refresh(self):
        try:
            st = os.stat(self.path)
        except OSError:
            return
        size = st.st_size
        with self.lock:
            # A new attempt creates the file anew (another inode), or at least starts it over.
            if size < self.offset or st.st_ino != self.inode:
                if self.inode is not None:
                    self.attempts.append([])
                self.inode = st.st_ino
                self.offset = 0
                self.partial = b""
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
            self.offset += len(data)
            data = self.partial + data
            lines = data.split(b"\n")
            self.partial = lines.pop()
            for line in lines:
                if line.strip():
                    try:
                        event = json.loads(line)
                    except ValueError:
                        continue
                    if event.get("event") == JOB_START and self.attempts[-1]:
                        self.attempts.append([])
                    self.attempts[-1].append(event)

    def events(self, attempt=-1):
        self.refresh()
        with self.lock:
            return list(self.attempts[attempt])

    def all_events(self):
        self.refresh()
        with self.lock:
            return [e for a in self.attempts for e in a]


class Progress:
    """What an attempt's events say about its tasks."""

    def __init__(self, events):
        self.events = events
        self.running = {}  # task id -> taskStart
        self.map_done = set()
        self.map_starts = []
        self.reduce_starts = []
        self.executor_node = {}
        self.map_stage_done = False
        for e in events:
            kind = e.get("event")
            if kind == EXECUTOR_LAUNCHED:
                self.executor_node[str(e["executor"])] = int(e["shufflePort"]) - SHUFFLE_PORT_BASE
            elif kind == TASK_START:
                self.running[e["task"]] = e
                (self.map_starts if e["kind"] == "MAP" else self.reduce_starts).append(e)
            elif kind == TASK_END:
                self.running.pop(e["task"], None)
                if e["kind"] == "MAP" and e.get("result") == "SUCCEEDED":
                    self.map_done.add((e["stage"], e["index"]))
            elif kind == STAGE_COMPLETED and e.get("name") == "map":
                self.map_stage_done = True

    def running_of(self, kind):
        return [e for e in self.running.values() if e["kind"] == kind]

    def map_output_nodes(self):
        """(stage, map index) -> node of its last successful attempt."""
        where = {}
        for e in self.events:
            if e.get("event") == TASK_END and e["kind"] == "MAP" and e.get("result") == "SUCCEEDED":
                where[(e["stage"], e["index"])] = self.executor_node.get(str(e["executor"]))
        return where


def job_seconds(events):
    """Seconds from the last jobStart to jobEnd in the event log (the job inside the AM, without
    the submission, the AM's start and the client's exit), or None."""
    starts = [e["time"] for e in events if e.get("event") == JOB_START]
    ends = [e["time"] for e in events if e.get("event") == JOB_END]
    return (ends[-1] - starts[-1]) / 1000.0 if starts and ends else None


def map_reruns(events):
    """Map task attempts beyond the first of each map (over all attempts of the AM, the first
    attempt's maps count once)."""
    starts = collections.Counter()
    for e in events:
        if e.get("event") == TASK_START and e["kind"] == "MAP":
            starts[(e["stage"], e["index"])] += 1
    return sum(n - 1 for n in starts.values())


class Job:
    COMMON = {
        "tide.queue": "batch",
        "tide.am.memory": "256m",
        "tide.am.memoryOverhead": "192m",
        "tide.executor.memory": "256m",
        "tide.executor.memoryOverhead": "192m",
        "tide.executor.javaOpts": "-XX:+UseSerialGC -XX:TieredStopAtLevel=1",
        "tide.am.javaOpts": "-XX:+UseSerialGC -XX:TieredStopAtLevel=1",
        "tide.dynamicAllocation.maxExecutors": "4",
        "tide.yarn.placement": "spread",
        "tide.eventLog.dir": "file://" + EVENTS_DIR,
    }

    def __init__(self, cluster, name, args, settings=None, timeout=300):
        self.cluster = cluster
        self.name = name
        self.settings = dict(self.COMMON)
        self.settings.update(settings or {})
        self.args = args
        self.timeout = timeout
        self.app_id = None
        self.proc = None
        self.output_lines = []
        self.started = None
        self.wall = None
        self.rc = None

    live = set()  # jobs whose client still runs, killed if the suite is interrupted

    def start(self):
        Job.live.add(self)
        cmd = [os.path.join(self.cluster.tide_home, "bin", "tide"), *self.args]
        for k, v in self.settings.items():
            cmd += ["-D", "%s=%s" % (k, v)]
        self.log_path = os.path.join(RUN, "logs", "client-%s.log" % self.name)
        log("%s: %s" % (self.name, " ".join(cmd[1:])))
        self.started = time.monotonic()
        self.proc = subprocess.Popen(cmd, env=self.cluster.env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.app_id = poll("%s to be submitted" % self.name, self._app_id, 90)
        self.events = EventLog(os.path.join(EVENTS_DIR, self.app_id + ".events"))
        log("%s: %s" % (self.name, self.app_id))
        return self

    def _read(self):
        with open(self.log_path, "w") as out:
            for line in self.proc.stdout:
                out.write(line)
                out.flush()
                self.output_lines.append(line.rstrip("\n"))

    def _app_id(self):
        for line in self.output_lines:
            m = re.search(r"Submitted (application_\d+_\d+)", line)
            if m:
                return m.group(1)
        if self.proc.poll() is not None:
            raise ScenarioFailed("%s: the client exited %s before submitting:\n%s" % (
                self.name, self.proc.returncode, "\n".join(self.output_lines[-20:])))
        return None

    def progress(self, attempt=-1):
        return Progress(self.events.events(attempt))

    def wait_for(self, what, predicate, timeout=120):
        def check():
            if self.proc.poll() is not None:
                raise ScenarioFailed("%s ended (exit %s) before %s" % (self.name, self.proc.returncode, what))
            return predicate(self.progress())
        return poll("%s: %s" % (self.name, what), check, timeout)

    def finish(self):
        try:
            self.rc = self.proc.wait(timeout=max(1, self.timeout - (time.monotonic() - self.started)))
        except subprocess.TimeoutExpired:
            # The client kills the application on SIGTERM as on Ctrl-C; SIGINT would do nothing
            # when this suite runs in the background of a non-interactive shell (its children
            # inherit SIGINT ignored, and a JVM that starts with it ignored keeps it so).
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            raise ScenarioFailed("%s did not end within %ds" % (self.name, self.timeout))
        finally:
            self.reader.join(timeout=10)
            Job.live.discard(self)
        self.wall = time.monotonic() - self.started
        return self.rc

    def diagnostics(self):
        return "\n".join(l for l in self.output_lines if "diagnostics" in l or "ended:" in l)


def read_output(cluster, out_dir):
    r = cluster.hdfs("-cat", out_dir + "/part-*", check=False)
    if r.returncode != 0:
        raise ScenarioFailed("cannot read the output %s: %s" % (out_dir, r.stderr[-500:]))
    return sorted(r.stdout.splitlines())


# --- input ------------------------------------------------------------------------------------

def write_text_input(cluster, path, megabytes, seed=16):
    """Deterministic text of about `megabytes` MiB in HDFS at path; returns the word counts.
    The text is one random block of up to 8 MiB written as many times as it takes."""
    rng = random.Random(seed)
    vocabulary = ["w%04d" % i for i in range(2000)]
    block_counts = collections.Counter()
    lines = []
    size = 0
    while size < min(megabytes, 8) * 1024 * 1024:
        words = [rng.choice(vocabulary) for _ in range(rng.randint(5, 15))]
        block_counts.update(words)
        line = " ".join(words) + "\n"
        lines.append(line)
        size += len(line)
    block = "".join(lines)
    repeat = max(1, round(megabytes / min(megabytes, 8)))
    local = os.path.join(RUN, "input-%d.txt" % megabytes)
    with open(local, "w") as f:
        for _ in range(repeat):
            f.write(block)
    counts = collections.Counter({w: n * repeat for w, n in block_counts.items()})
    cluster.hdfs("-rm", "-r", "-f", path, check=False)
    cluster.hdfs("-mkdir", "-p", path)
    cluster.hdfs("-put", local, path + "/input.txt")
    return sorted("%s\t%d" % (w, n) for w, n in counts.items())


# --- scenarios ---------------------------------------------------------------------------------

Result = collections.namedtuple("Result", "scenario injected outcome identical reruns wall clean")


class Suite:
    def __init__(self, cluster):
        self.cluster = cluster
        self.clean = {}  # job kind -> (output lines, wall seconds)
        self.clean_job = {}  # job kind -> seconds from jobStart to jobEnd
        self.results = []
        self.counter = 0
        self.expected_words = None  # the wordcount input's counts, once it is written

    def out_dir(self, name):
        self.counter += 1
        return "/chaos/out/%s-%d" % (name, self.counter)

    # Jobs. The sleep job's maps sleep and then emit -b bytes; its reducers wait -rd before they
    # fetch, which holds the shuffle open long enough to act in it.
    def sleep_job(self, name, out, settings=None, rd=2000, maps=12, timeout=300, reduces=4):
        args = ["sleep", "-m", str(maps), "-r", str(reduces), "-mt", "2000", "-rt", "500",
                "-b", str(2 * 1024 * 1024), "-rd", str(rd), "-o", out]
        return Job(self.cluster, name, args, settings, timeout)

    # The decommission scenarios' job: the sleep job's 12 maps of 2 MiB and one reducer that
    # waits 20 s before it fetches, so that a node holding map outputs and no reduce can leave
    # (timeout 12 s, and the RM's watcher and heartbeats) before the reducer fetches. Its clean
    # run ("sleep-leave") is the reference of these rows.
    LEAVE_RD = 20000

    def leave_job(self, name, out, settings=None):
        return self.sleep_job(name, out, settings, rd=self.LEAVE_RD, reduces=1)

    # 128 MiB of text in 64 KiB splits: 2,048 short maps, a job of 30-40 s on a quiet machine,
    # long enough for exec-kill-every-3s to kill several executors.
    WORDCOUNT_INPUT_MB = 128

    def wordcount_job(self, name, out, settings=None, timeout=300):
        if self.expected_words is None:
            self.expected_words = write_text_input(self.cluster, "/chaos/in", self.WORDCOUNT_INPUT_MB)
        base = {"tide.wordcount.reducers": "4", "tide.wordcount.splitSize": str(64 * 1024)}
        base.update(settings or {})
        return Job(self.cluster, name, ["wordcount", "/chaos/in", out], base, timeout)

    def clean_run(self, kind):
        if kind in self.clean:
            return self.clean[kind]
        out = self.out_dir("clean-" + kind)
        job = {"sleep": self.sleep_job, "sleep-leave": self.leave_job,
               "wordcount": self.wordcount_job}[kind]("clean-" + kind, out)
        job.start()
        rc = job.finish()
        if rc != 0:
            raise ScenarioFailed("the clean %s run failed (exit %d): %s" % (kind, rc, job.diagnostics()))
        lines = read_output(self.cluster, out)
        if kind == "wordcount" and lines != self.expected_words:
            raise ScenarioFailed("the clean wordcount's output differs from the counts computed"
                                 " independently")
        reruns = map_reruns(job.events.all_events())
        self.clean[kind] = (lines, job.wall)
        self.clean_job[kind] = job_seconds(job.events.all_events())
        self.results.append(Result("clean %s" % kind, "-", "succeeded", "yes (vs. independent count)"
                                   if kind == "wordcount" else "reference", reruns, job.wall, job.wall))
        return self.clean[kind]

    def record(self, scenario, kind, job, out, injected, extra="", expect_success=True):
        clean_lines, clean_wall = self.clean_run(kind)
        ok = job.rc == 0
        identical = "n/a"
        if ok:
            identical = "yes" if read_output(self.cluster, out) == clean_lines else "NO"
        outcome = ("succeeded" if ok else "failed: " + job.diagnostics()[-300:]) + (
            "; " + extra if extra else "")
        reruns = map_reruns(job.events.all_events())
        self.results.append(Result(scenario, injected, outcome, identical, reruns, job.wall, clean_wall))
        if expect_success and (not ok or identical != "yes"):
            raise ScenarioFailed("%s: %s, output identical: %s" % (scenario, outcome, identical))

    # -- executor kills

    def exec_kill(self, scenario, phase):
        self.clean_run("sleep")
        out = self.out_dir(scenario)
        job = self.sleep_job(scenario, out).start()
        kind = "MAP" if phase == "map" else "REDUCE"

        def victim(p):
            if kind == "MAP" and len(p.map_done) >= 10:
                raise ScenarioFailed("the map phase ended before an executor could be killed in it")
            live = executor_pids(job.app_id)
            for task in p.running_of(kind):
                if str(task["executor"]) in live:
                    return str(task["executor"]), live[str(task["executor"])][0], task
            return None
        executor, pid, task = job.wait_for("an executor running a %s task" % kind, victim)
        t = time.monotonic() - job.started
        sigkill(pid)
        injected = "%.1fs: SIGKILL executor %s running %s %s" % (t, executor, kind.lower(), task["index"])
        log("%s: %s" % (scenario, injected))
        job.finish()
        self.record(scenario, "sleep", job, out, injected)

    # Milliseconds between a killed executor's failure being counted (its containerCompleted
    # event) and a task success that counts as progress after it: the AM reads the progress on
    # another thread just after it records the event.
    PROGRESS_MARGIN_MS = 100

    def exec_kill_every(self, scenario, period=3.0, min_kills=3):
        """SIGKILLs an executor at most every `period` seconds, and only one that has finished a
        task since the previous kill's failure was counted.

        What it tests, and only that: repeated executor losses while the job makes progress cost
        retries, never the job. Each SIGKILL is an executor failure (exit 137), and only failures
        in a row (no task succeeding between them) count towards tide.executor.maxFailures (by
        default 2 x maxExecutors = 8); with a success between every two kills the count never
        passes 1, on a quiet machine or a loaded one (which only makes the kills fewer). Killing
        at a fixed pace whatever happened instead tested the machine's load: on a loaded machine
        executors died before they had started, and the job failed in one run of two.

        What the product does when executors die faster than they can start (no task succeeds
        between the failures): after more than tide.executor.maxFailures failures in a row the
        application fails ("N executor failures in a row (no task succeeded between them) ...").
        That is intended: a cluster that cannot keep an executor alive long enough for one task
        fails the job after a bounded number of tries instead of retrying forever. It is not
        exercised here."""
        self.clean_run("wordcount")
        out = self.out_dir(scenario)
        job = self.wordcount_job(scenario, out)
        job.start()
        kills = []
        last_container = None  # the last victim's container, until its failure is counted
        next_kill = time.monotonic() + period
        while job.proc.poll() is None and time.monotonic() - job.started <= job.timeout:
            if time.monotonic() >= next_kill:
                victim = self.kill_candidate(job, last_container)
                if victim is not None:
                    executor, pid, container = victim
                    if sigkill(pid):
                        kills.append("%.0fs:%s" % (time.monotonic() - job.started, executor))
                        last_container = container
                        next_kill = time.monotonic() + period
            time.sleep(0.1)
        job.finish()
        injected = ("every >= %.0fs, an executor that finished a task since the last kill: %d"
                    " SIGKILLed (%s)" % (period, len(kills), " ".join(kills)))
        log("%s: %s" % (scenario, injected))
        self.record(scenario, "wordcount", job, out, injected)
        if len(kills) < min_kills:
            raise ScenarioFailed("%s: only %d executors killed (at least %d wanted): the job ended"
                                 " before the scenario tested anything" % (scenario, len(kills), min_kills))

    def kill_candidate(self, job, last_container):
        """(executor, pid, container) of a live executor with a task succeeded after the last
        victim's failure was counted, or None (the lowest executor id, so runs are alike)."""
        events = job.events.events()
        counted_at = None
        if last_container is not None:
            for e in events:
                if e.get("event") == CONTAINER_COMPLETED and e.get("container") == last_container:
                    counted_at = e["time"]
            if counted_at is None:
                return None  # the last kill's failure is not counted yet
        container_of = {str(e["executor"]): e.get("container") for e in events
                        if e.get("event") == EXECUTOR_LAUNCHED}
        finished = {str(e["executor"]) for e in events
                    if e.get("event") == TASK_END and e.get("result") == "SUCCEEDED"
                    and (counted_at is None or e["time"] >= counted_at + self.PROGRESS_MARGIN_MS)}
        live = executor_pids(job.app_id)
        for executor in sorted(finished & set(live), key=lambda x: (len(x), x)):
            if container_of.get(executor):
                return executor, live[executor][0], container_of[executor]
        return None

    # -- NodeManagers

    def pick_node(self, job, p):
        """The node holding most map outputs, but not the AM's."""
        am = am_pid(job.app_id)
        am_node = am[1][0] if am else None
        per_node = collections.Counter(n for n in p.map_output_nodes().values() if n != am_node)
        if not per_node:
            raise ScenarioFailed("no map output on a node without the AM (AM on node %s)" % am_node)
        return per_node.most_common(1)[0][0]

    def kill_node_until_done(self, scenario, job, node, injected):
        """SIGKILLs NodeManager `node` with its containers, waits for the job to end, then starts
        the node again for the next scenario."""
        self.cluster.script("kill-nm", str(node))
        log("%s: %s" % (scenario, injected))
        try:
            job.finish()
        finally:
            self.cluster.script("start-nm", str(node))
        return job.events.all_events()

    def in_shuffle(self, scenario, rd, settings=None):
        """Starts the sleep job and waits for its shuffle: every map done, reducers running
        (each waits rd ms before it fetches). Returns the output dir, the job, its progress and
        the node to act on."""
        self.clean_run("sleep")
        out = self.out_dir(scenario)
        job = self.sleep_job(scenario, out, settings, rd=rd).start()
        p = job.wait_for("the reducers running, every map done",
                         lambda p: p.map_stage_done and p.running_of("REDUCE") and p)
        return out, job, p, self.pick_node(job, p)

    def nm_kill_shuffle(self, scenario):
        out, job, p, node = self.in_shuffle(scenario, rd=6000)
        on_node = sorted(k for k, n in p.map_output_nodes().items() if n == node)
        t = time.monotonic() - job.started
        kill_time_ms = time.time() * 1000
        injected = "%.1fs (shuffle): SIGKILL NodeManager %d and its containers; it held %d map outputs" % (
            t, node, len(on_node))
        events = self.kill_node_until_done(scenario, job, node, injected)
        rerun = sorted({(e["stage"], e["index"]) for e in events if e.get("event") == TASK_START
                        and e["kind"] == "MAP" and e["time"] >= kill_time_ms})
        replaced = sorted({int(e["shufflePort"]) - SHUFFLE_PORT_BASE for e in events
                           if e.get("event") == EXECUTOR_LAUNCHED and e["time"] >= kill_time_ms})
        extra = "maps rerun %s, those on the node %s: %s; executors launched after on nodes %s" % (
            [i for _, i in rerun], [i for _, i in on_node],
            "exactly those" if rerun == on_node else "DIFFERENT", replaced)
        self.record(scenario, "sleep", job, out, injected, extra)
        if rerun != on_node or node in replaced:
            raise ScenarioFailed("%s: %s" % (scenario, extra))

    def nm_restart_shuffle(self, scenario, during_fetch=False):
        # The reducers fetch 15 s after they start, or, during_fetch, 2 s after, while the
        # NodeManager is down. A restart took 14 s on a quiet machine and 83 s at a load of 50, so
        # tide.executor.shuffle.connectRetries=14 (about 93 s of retries) carries the fetches over it.
        settings = {"tide.executor.shuffle.connectRetries": "14"}
        out, job, p, node = self.in_shuffle(scenario, rd=2000 if during_fetch else 15000,
                                            settings=settings)
        t = time.monotonic() - job.started
        took = self.cluster.script("restart-nm", str(node))
        injected = "%.1fs (shuffle): NodeManager %d restarted (SIGTERM, start, up again in %.1fs)" % (
            t, node, took)
        log("%s: %s" % (scenario, injected))
        job.finish()
        self.record(scenario, "sleep", job, out, injected)
        reruns = map_reruns(job.events.all_events())
        if reruns:
            raise ScenarioFailed("%s: %d maps rerun after a supervised NodeManager restart" % (scenario, reruns))

    # -- nodes that leave gracefully: decommission, map output migration

    def leaving_node(self, job, p):
        """The node to decommission: not the AM's, running no reduce (a reduce there would be
        lost with the node whatever happens to the map outputs), holding the most map outputs."""
        am = am_pid(job.app_id)
        am_node = am[1][0] if am else None
        reducing = {p.executor_node.get(str(e["executor"])) for e in p.running_of("REDUCE")}
        per_node = collections.Counter(n for n in p.map_output_nodes().values()
                                       if n != am_node and n not in reducing)
        if not per_node:
            raise ScenarioFailed("no map output on a node without the AM (node %s) nor a reduce"
                                 " (nodes %s)" % (am_node, sorted(reducing)))
        return per_node.most_common(1)[0][0]

    def decommission(self, scenario, timeout_s, kill_mid_copy=False, kill_target=False, settings=None):
        """Decommissions (gracefully, timeout_s) a node holding map outputs while the job's reducer
        waits to fetch; with kill_mid_copy, SIGKILLs that NodeManager once the copy of its outputs
        has started; with kill_target, SIGKILLs instead a node the outputs are copied to (not the
        AM's). Watches the node leave, waits for the job, takes the node back in service.
        Returns the job, its output dir, what was injected, its events, the node, the map outputs
        it held, when the decommission began (epoch ms), when the node left (s after the job
        started, or None) and the migration's last event (migrationFinished/Failed) or None."""
        self.clean_run("sleep-leave")
        out = self.out_dir(scenario)
        job = self.leave_job(scenario, out, settings).start()
        p = job.wait_for("the reducer running, every map done",
                         lambda p: p.map_stage_done and p.running_of("REDUCE") and p)
        node = self.leaving_node(job, p)
        on_node = sorted(k for k, n in p.map_output_nodes().items() if n == node)
        t = time.monotonic() - job.started
        began_ms = time.time() * 1000
        self.cluster.script("decommission", str(node), str(timeout_s))
        injected = "%.1fs (reducer waiting to fetch): decommission NodeManager %d, timeout %ds; it held" \
            " %d map outputs" % (t, node, timeout_s, len(on_node))
        left = None
        restart = []  # other nodes to bring back
        try:
            if kill_target:
                started = job.wait_for("the copy of node %d's map outputs started" % node, lambda p: [
                    e for e in p.events if e.get("event") == MIGRATION_STARTED], timeout=60)[0]
                am = am_pid(job.app_id)
                am_node = am[1][0] if am else None
                targets = [n for n in NODES if nm_host(n) in started["targets"].split(",")
                           and n not in (node, am_node)]
                if not targets:
                    raise ScenarioFailed("the outputs of node %d go to %s only, the AM's node (%s) or"
                                         " none" % (node, started["targets"], am_node))
                copied = any(e.get("event") in (MIGRATION_FINISHED, MIGRATION_FAILED)
                             for e in job.events.events())
                t_kill = time.monotonic() - job.started
                self.cluster.script("kill-nm", str(targets[0]))
                restart.append(targets[0])
                injected += "; %.1fs: SIGKILL NodeManager %d, a target of the copy (targets %s), %s" % (
                    t_kill, targets[0], started["targets"],
                    "AFTER the copy had ended" if copied else "while the outputs were copied")
            if kill_mid_copy:
                job.wait_for("the copy of node %d's map outputs started" % node, lambda p: any(
                    e.get("event") == MIGRATION_STARTED for e in p.events), timeout=60)
                copied = any(e.get("event") in (MIGRATION_FINISHED, MIGRATION_FAILED)
                             for e in job.events.events())
                t_kill = time.monotonic() - job.started
                self.cluster.script("kill-nm", str(node))
                injected += "; %.1fs: SIGKILL NodeManager %d %s" % (
                    t_kill, node, "AFTER its copy had ended" if copied else "while its outputs were copied")
            log("%s: %s" % (scenario, injected))
            while job.proc.poll() is None and time.monotonic() - job.started < job.timeout:
                if left is None and rm_node_state(node) in ("DECOMMISSIONED", "LOST", "SHUTDOWN"):
                    left = time.monotonic() - job.started
                    log("%s: node %d left at %.1fs" % (scenario, node, left))
                time.sleep(0.5)
            job.finish()
        finally:
            self.cluster.script("recommission", str(node))
            for n in restart:
                self.cluster.script("start-nm", str(n))
        events = job.events.all_events()
        ended = [e for e in events if e.get("event") in (MIGRATION_FINISHED, MIGRATION_FAILED)]
        return job, out, injected, events, node, on_node, began_ms, left, (ended[-1] if ended else None)

    @staticmethod
    def reruns_after(events, since_ms):
        return sorted({(e["stage"], e["index"]) for e in events if e.get("event") == TASK_START
                       and e["kind"] == "MAP" and e["time"] >= since_ms})

    @staticmethod
    def migration_text(end):
        if end is None:
            return "no migration recorded"
        text = "%s: moved %s of %s outputs" % (end["event"], end.get("moved"), end.get("outputs"))
        if "millis" in end:
            text += " (%s bytes in %s ms)" % (end.get("bytes"), end.get("millis"))
        if end.get("reason"):
            text += "; reason: %s" % end["reason"][:160]
        return text

    def node_decommission(self, scenario):
        """The headline: the node leaves while the reducer waits, its outputs copied first."""
        job, out, injected, events, node, on_node, began, left, end = self.decommission(scenario, 12)
        reruns = self.reruns_after(events, began)
        extra = "%s; node left at %s; maps rerun %s; jobStart to jobEnd %.1fs (clean %.1fs)" % (
            self.migration_text(end), "%.1fs" % left if left is not None else "NOT during the job",
            [i for _, i in reruns], job_seconds(events) or 0, self.clean_job.get("sleep-leave") or 0)
        self.record(scenario, "sleep-leave", job, out, injected, extra)
        moved_all = end is not None and end["event"] == MIGRATION_FINISHED and end.get("moved") == len(on_node)
        if reruns or not moved_all or left is None:
            raise ScenarioFailed("%s: %s" % (scenario, extra))

    def node_decommission_short(self, scenario):
        """A timeout too short for the copy (2 s; copies are throttled to
        tide.shuffle.migration.maxBytesPerSec, 2 MiB/s on this cluster): what was not copied
        reruns, only that."""
        job, out, injected, events, node, on_node, began, left, end = self.decommission(scenario, 2)
        reruns = self.reruns_after(events, began)
        moved = end.get("moved", 0) if end else 0
        extra = "%s; node left at %s; maps rerun %s of its %s" % (
            self.migration_text(end), "%.1fs" % left if left is not None else "NOT during the job",
            [i for _, i in reruns], [i for _, i in on_node])
        self.record(scenario, "sleep-leave", job, out, injected, extra)
        if not reruns or not set(reruns) <= set(on_node) or len(reruns) > len(on_node) - moved:
            raise ScenarioFailed("%s: %s" % (scenario, extra))

    def migration_node_lost(self, scenario):
        """The leaving node dies (SIGKILL of its NodeManager and containers) while its outputs are
        copied: the maps not copied rerun, at most that node's."""
        job, out, injected, events, node, on_node, began, left, end = self.decommission(
            scenario, 60, kill_mid_copy=True)
        reruns = self.reruns_after(events, began)
        extra = "%s; maps rerun %s of its %s" % (self.migration_text(end), [i for _, i in reruns],
                                                [i for _, i in on_node])
        self.record(scenario, "sleep-leave", job, out, injected, extra)
        if not set(reruns) <= set(on_node):
            raise ScenarioFailed("%s: %s" % (scenario, extra))

    def migration_target_lost(self, scenario):
        """A node the leaving node's outputs are copied to dies (SIGKILL of its NodeManager and
        containers) during the copy: what it lost and what was not copied reruns, at most the maps
        of the two nodes. Executors are kept on every node (minExecutors 3) so that a target
        other than the AM's node exists."""
        job, out, injected, events, node, on_node, began, left, end = self.decommission(
            scenario, 12, kill_target=True, settings={"tide.dynamicAllocation.minExecutors": "3"})
        reruns = self.reruns_after(events, began)
        m = re.search(r"SIGKILL NodeManager (\d+), a target", injected)
        target = int(m.group(1)) if m else None
        where = Progress([e for e in events if e["time"] < began]).map_output_nodes()
        bound = sorted(k for k, n in where.items() if n in (node, target))
        extra = "%s; maps rerun %s; maps of the two nodes %s" % (
            self.migration_text(end), [i for _, i in reruns], [i for _, i in bound])
        self.record(scenario, "sleep-leave", job, out, injected, extra)
        if not set(reruns) <= set(bound):
            raise ScenarioFailed("%s: %s" % (scenario, extra))

    # -- preemption between CapacityScheduler queues

    def preempt_job(self, name, out, queue, settings=None):
        """The preemption scenario's Tide job, in `default` (30% of the cluster): 16 executors kept
        (minExecutors 16, about 70% of the cluster's memory), 16 maps at once, then 2 reducers that
        wait 25 s while the other 14 executors idle."""
        base = {"tide.queue": queue, "tide.dynamicAllocation.maxExecutors": "16",
                "tide.dynamicAllocation.minExecutors": "16",
                "tide.yarn.placement": "locality",
                "tide.dynamicAllocation.executorIdleTimeout": "120s"}
        base.update(settings or {})
        args = ["sleep", "-m", "16", "-r", "2", "-mt", "3000", "-rt", "500",
                "-b", str(1024 * 1024), "-rd", "25000", "-o", out]
        return Job(self.cluster, name, args, base, timeout=300)

    def preempt_queues(self, scenario):
        """Tide's job holds most of the cluster from `default` (guaranteed 30%); a second
        application in `batch` (guaranteed 70%) asks for more than is free: the
        ProportionalCapacityPreemptionPolicy takes containers back from `default`. Tide gives back
        idle executors first, counts no failure, and its output is exact."""
        out = self.out_dir(scenario)
        if "preempt" not in self.clean:
            clean_out = self.out_dir("clean-preempt")
            clean = self.preempt_job("clean-preempt", clean_out, "default").start()
            if clean.finish() != 0:
                raise ScenarioFailed("the clean preemption job failed: %s" % clean.diagnostics())
            self.clean["preempt"] = (read_output(self.cluster, clean_out), clean.wall)
            self.results.append(Result("clean preempt", "-", "succeeded", "reference",
                                       map_reruns(clean.events.all_events()), clean.wall, clean.wall))
        job = self.preempt_job(scenario, out, "default").start()
        p = job.wait_for("the reducers running, every map done",
                         lambda p: p.map_stage_done and p.running_of("REDUCE") and p, timeout=180)
        live = len(executor_pids(job.app_id))
        t = time.monotonic() - job.started
        other_out = self.out_dir(scenario + "-batch")
        other = Job(self.cluster, scenario + "-batch", [
            "sleep", "-m", "12", "-r", "1", "-mt", "15000", "-rt", "100", "-b", "1024", "-o", other_out],
            {"tide.queue": "batch", "tide.dynamicAllocation.maxExecutors": "12",
             "tide.yarn.placement": "locality"}, timeout=240).start()
        injected = ("%.1fs (reducers waiting, %d executors up): a second application (%s) in queue"
                    " batch asks for 12 executors" % (t, live, other.app_id))
        log("%s: %s" % (scenario, injected))
        try:
            job.finish()
        finally:
            other.finish()
        events = job.events.all_events()
        preempted = [e for e in events if e.get("event") == EXECUTOR_PREEMPTED]
        requests = [e for e in events if e.get("event") == PREEMPTION_REQUESTED]
        failures = [e for e in events if e.get("event") == CONTAINER_COMPLETED and e.get("failure")]
        busy = set()  # executors running a task when YARN asked
        running = {}
        for e in events:
            if e.get("event") == TASK_START:
                running[e["task"]] = str(e["executor"])
            elif e.get("event") == TASK_END:
                running.pop(e["task"], None)
            elif e.get("event") == PREEMPTION_REQUESTED:
                busy |= set(running.values())
        busy_given = [e for e in preempted if str(e.get("executor")) in busy]
        timeline = subprocess.run([os.path.join(self.cluster.tide_home, "bin", "tide"), "timeline",
                                   "file://" + job.events.path], env=self.cluster.env, capture_output=True,
                                  text=True, timeout=60).stdout
        with open(os.path.join(RUN, "preempt-timeline.txt"), "w") as f:
            f.write(timeline)
        for line in timeline.splitlines():
            if "preempt" in line.lower():
                log("%s timeline: %s" % (scenario, line))
        hows = collections.Counter(e.get("how") for e in preempted)
        extra = ("%d preemption requests, %d executors preempted (%s), %d of them running a task when"
                 " asked; %d containers counted as failures; second application exit %s; timeline"
                 " in %s" % (len(requests), len(preempted), ", ".join("%s %d" % kv for kv in sorted(hows.items())),
                             len(busy_given), len(failures), other.rc, os.path.join(RUN, "preempt-timeline.txt")))
        clean_lines, clean_wall = self.clean["preempt"]
        ok = job.rc == 0
        identical = ("yes" if read_output(self.cluster, out) == clean_lines else "NO") if ok else "n/a"
        self.results.append(Result(scenario, injected, ("succeeded" if ok else "failed: " + job.diagnostics()[-300:])
                                   + "; " + extra, identical, map_reruns(events), job.wall, clean_wall))
        if not ok or identical != "yes" or not preempted or failures or other.rc != 0:
            raise ScenarioFailed("%s: %s" % (scenario, extra))

    # -- ResourceManager and ApplicationMaster

    def rm_restart(self, scenario):
        self.clean_run("sleep")
        out = self.out_dir(scenario)
        job = self.sleep_job(scenario, out).start()
        job.wait_for("4 maps done", lambda p: len(p.map_done) >= 4)
        t = time.monotonic() - job.started
        took = self.cluster.script("restart-rm")
        injected = "%.1fs (maps): ResourceManager restarted (work-preserving; up with 3 nodes in %.1fs)" % (t, took)
        log("%s: %s" % (scenario, injected))
        job.finish()
        self.record(scenario, "sleep", job, out, injected)

    def am_kill(self, scenario):
        self.clean_run("sleep")
        out = self.out_dir(scenario)
        job = self.sleep_job(scenario, out, settings={"tide.am.maxAttempts": "2"}).start()
        job.wait_for("4 maps done", lambda p: len(p.map_done) >= 4)
        pid, (node, _) = am_pid(job.app_id) or (None, (None, None))
        if pid is None:
            raise ScenarioFailed("no AM process found for " + job.app_id)
        t = time.monotonic() - job.started
        sigkill(pid)
        injected = "%.1fs (maps): SIGKILL the AM (attempt 1, node %d)" % (t, node)
        log("%s: %s" % (scenario, injected))
        job.finish()
        # YARN's count: the event log file is rewritten by the second attempt.
        try:
            listing = self.cluster.yarn("applicationattempt", "-list", job.app_id).stdout
            attempts = str(len(set(re.findall(r"appattempt_\d+_\d+_\d+", listing))))
        except (OSError, subprocess.SubprocessError):
            attempts = "?"
        self.record(scenario, "sleep", job, out, injected, "AM attempts (yarn applicationattempt"
                    " -list): %s; map reruns counted in the last attempt's event log" % attempts)

    # -- streaming

    def stream_nm_kill(self, scenario):
        out = self.out_dir(scenario)
        job = Job(self.cluster, scenario, ["stream-rate", out], {
            "tide.streaming.batchInterval": "2s",
            "tide.streaming.stopAfter": "40s",
            "tide.streaming.rate.schedule": "300@0s",
            "tide.streaming.rate.splits": "4",
            "tide.streaming.dynamicAllocation.enabled": "true",
            "tide.streaming.dynamicAllocation.minExecutors": "2",
            "tide.streaming.dynamicAllocation.maxExecutors": "4",
        }, timeout=240)
        del job.settings["tide.dynamicAllocation.maxExecutors"]  # batch allocation is off here
        job.start()

        def node_with_executor(p):
            completed = sum(1 for e in p.events if e.get("event") == BATCH_COMPLETED)
            if completed < 4:
                return None
            am = am_pid(job.app_id)
            am_node = am[1][0] if am else None
            nodes = {n for _, (pid, n) in executor_pids(job.app_id).items() if n != am_node}
            return min(nodes) if nodes else None
        node = job.wait_for("4 batches done and an executor on a node without the AM",
                            node_with_executor, timeout=120)
        t = time.monotonic() - job.started
        injected = "%.1fs (after 4 batches): SIGKILL NodeManager %d and its containers" % (t, node)
        events = self.kill_node_until_done(scenario, job, node, injected)
        completed = [e["batch"] for e in events if e.get("event") == BATCH_COMPLETED]
        submitted = [e["batch"] for e in events if e.get("event") == BATCH_SUBMITTED]
        # Every record id once: the ranges of all batch directories tile 0..N.
        r = self.cluster.hdfs("-cat", out + "/batch-*/part-*", check=False)
        ranges = sorted(tuple(int(x) for x in l.split("\t")) for l in r.stdout.splitlines() if l.strip())
        r2 = self.cluster.hdfs("-ls", out, check=False)
        dirs = [l.rsplit("/", 1)[1] for l in r2.stdout.splitlines() if "/batch-" in l]
        end = 0
        gaps, overlaps = 0, 0
        for first, stop in ranges:
            if first > end:
                gaps += 1
            elif first < end:
                overlaps += 1
            end = max(end, stop)
        ok = (job.rc == 0 and gaps == 0 and overlaps == 0 and len(completed) == len(set(completed))
              and sorted(set(submitted)) == sorted(completed) and len(dirs) == len(set(completed)))
        extra = ("%d batches submitted, %d completed, %d batch dirs; records 0..%d in %d ranges, gaps %d,"
                 " overlaps %d" % (len(set(submitted)), len(completed), len(dirs), end, len(ranges), gaps, overlaps))
        self.results.append(Result(scenario, injected, ("succeeded" if job.rc == 0 else "failed") + "; " + extra,
                                   "yes (every record id once)" if ok else "NO", map_reruns(events), job.wall, None))
        if not ok:
            raise ScenarioFailed("%s: %s" % (scenario, extra))

    # -- a real failure: executors that exceed their container's memory

    def memory_exceeded(self, scenario):
        out = self.out_dir(scenario)
        # Heap touched up front (AlwaysPreTouch) and no overhead: every executor's resident
        # memory passes its container's limit at once and YARN kills it (KILLED_EXCEEDED_PMEM).
        job = self.sleep_job(scenario, out, settings={
            "tide.executor.memory": "384m",
            "tide.executor.memoryOverhead": "0",
            "tide.executor.javaOpts": "-Xms384m -XX:+AlwaysPreTouch -XX:+UseSerialGC",
        }, timeout=180).start()
        job.finish()
        diag = job.diagnostics()
        launched = sum(1 for e in job.events.all_events() if e.get("event") == EXECUTOR_LAUNCHED)
        names_setting = "tide.executor.memory" in diag
        ok = job.rc == 1 and names_setting
        self.results.append(Result(scenario, "executors exceed their container (heap pre-touched, no overhead)",
                                   ("failed as expected" if ok else "UNEXPECTED (exit %s)" % job.rc)
                                   + " after %d executors: %s" % (launched, diag[:600].replace("\n", " ")),
                                   "n/a", map_reruns(job.events.all_events()), job.wall, None))
        if not ok:
            raise ScenarioFailed("%s: exit %s, diagnostics: %s" % (scenario, job.rc, diag))


SCENARIOS = collections.OrderedDict([
    ("exec-kill-map", lambda s: s.exec_kill("exec-kill-map", "map")),
    ("exec-kill-reduce", lambda s: s.exec_kill("exec-kill-reduce", "reduce")),
    ("exec-kill-every-3s", lambda s: s.exec_kill_every("exec-kill-every-3s")),
    ("nm-kill-shuffle", lambda s: s.nm_kill_shuffle("nm-kill-shuffle")),
    ("nm-restart-shuffle", lambda s: s.nm_restart_shuffle("nm-restart-shuffle")),
    ("nm-restart-during-fetch", lambda s: s.nm_restart_shuffle("nm-restart-during-fetch", True)),
    ("am-kill", lambda s: s.am_kill("am-kill")),
    ("rm-restart", lambda s: s.rm_restart("rm-restart")),
    ("decommission", lambda s: s.node_decommission("decommission")),
    ("decommission-short", lambda s: s.node_decommission_short("decommission-short")),
    ("migration-node-lost", lambda s: s.migration_node_lost("migration-node-lost")),
    ("migration-target-lost", lambda s: s.migration_target_lost("migration-target-lost")),
    ("preempt-queues", lambda s: s.preempt_queues("preempt-queues")),
    ("stream-nm-kill", lambda s: s.stream_nm_kill("stream-nm-kill")),
    ("memory-exceeded", lambda s: s.memory_exceeded("memory-exceeded")),
])
# What only a cluster of separate processes shows (a NodeManager process and its containers
# gone, a second AM attempt, a ResourceManager restart), plus one executor kill as a baseline.
# NodeManager restarts with recovery are also covered by integration-tests' NodeManagerRestartTest.
# The decommission and preemption scenarios stay out: each needs a clean run of its own job shape
# (a reducer waiting 20 s; 16 executors) besides its own run, about two minutes or more each, and
# the CI subset should stay near 250 s.
CI_SCENARIOS = ["exec-kill-map", "nm-kill-shuffle", "am-kill", "rm-restart"]


def fmt_wall(r):
    if r.clean is None:
        return "%.1fs" % r.wall
    return "%.1fs (clean %.1fs, %.2fx)" % (r.wall, r.clean, r.wall / r.clean)


def report(results, path):
    lines = ["| scenario | injected | outcome | output identical | map reruns | wall time (clean) |",
             "|---|---|---|---|---|---|"]
    for r in results:
        lines.append("| %s | %s | %s | %s | %s | %s |" % (
            r.scenario, r.injected, r.outcome.replace("|", "/").replace("\n", " "), r.identical,
            r.reruns, fmt_wall(r)))
    text = "\n".join(lines) + "\n"
    with open(path, "w") as f:
        f.write(text)
    print(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenarios", default="all",
                        help="comma-separated names, 'all' or 'ci' (%s)" % ", ".join(SCENARIOS))
    parser.add_argument("--keep-cluster", action="store_true", help="leave the cluster running")
    parser.add_argument("--no-start", action="store_true", help="use the cluster already running")
    parser.add_argument("--timeout", type=int, default=2700, help="bound on the whole suite (s)")
    opts = parser.parse_args()
    names = (list(SCENARIOS) if opts.scenarios == "all" else CI_SCENARIOS if opts.scenarios == "ci"
             else opts.scenarios.split(","))
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        parser.error("unknown scenarios %s; known: %s" % (unknown, ", ".join(SCENARIOS)))

    # SIGTERM and the suite's own deadline end it like Ctrl-C: the finally below stops the cluster.
    def interrupt(signum, frame):
        raise KeyboardInterrupt("signal %d" % signum)
    signal.signal(signal.SIGTERM, interrupt)
    signal.signal(signal.SIGALRM, interrupt)
    signal.alarm(opts.timeout)

    cluster = Cluster()
    suite = Suite(cluster)
    failures = []
    t0 = time.monotonic()
    try:
        if not opts.no_start:
            cluster.script("start", timeout=600)
        os.makedirs(EVENTS_DIR, exist_ok=True)
        cluster.hdfs("-rm", "-r", "-f", "/chaos/out", check=False)  # a kept cluster's last run
        for name in names:
            log("=== scenario %s" % name)
            try:
                SCENARIOS[name](suite)
            except ScenarioFailed as e:
                log("FAILED %s: %s" % (name, e))
                failures.append(name)
    except KeyboardInterrupt as e:
        log("interrupted (%s); stopping the cluster" % e)
        failures.append("interrupted")
    finally:
        signal.alarm(0)
        # A second Ctrl-C or SIGTERM must not cut the cleanup short.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        for job in list(Job.live):
            if job.proc.poll() is None:
                log("killing the client of %s (%s)" % (job.name, job.app_id))
                job.proc.send_signal(signal.SIGTERM)  # not SIGINT: see Job.finish
                try:
                    job.proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    job.proc.kill()
        if not opts.keep_cluster:
            try:
                cluster.script("stop", timeout=180)
            except Exception as e:  # collected, not raised over the report
                log("stopping the cluster failed: %s" % e)
        report(suite.results, os.path.join(RUN, "chaos-report.md"))
        log("done in %.0fs; report %s; logs %s" % (time.monotonic() - t0, os.path.join(RUN, "chaos-report.md"),
                                                   os.path.join(RUN, "logs")))
    if failures:
        log("FAILED: %s" % ", ".join(failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
