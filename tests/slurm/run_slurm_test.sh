#!/usr/bin/env bash
# Run a small graphdr target through a REAL one-node SLURM cluster on this machine and check it
# against a local run of the same target.
#
#   sudo tests/slurm/run_slurm_test.sh          # from the repository root, as root
#
# What it does (each wait is bounded; everything it starts is stopped by PID on exit):
#   1. installs slurm-wlm + munge with apt-get if they are missing (Debian/Ubuntu);
#   2. starts a private munged (own key and socket in a temp dir);
#   3. writes slurm.conf for this host from tests/slurm/slurm.conf.in (nproc CPUs, MemTotal minus
#      a margin, linuxproc process tracking, no cgroups, no accounting) and starts slurmctld and
#      slurmd; waits until sinfo shows the node idle;
#   4. runs TARGETS with `--cores N` in one temporary copy of the workflow, and through
#      `--executor slurm --workflow-profile profiles/slurm` in another;
#   5. checks that every rule ran as a SLURM job (sbatch job ids in the Snakemake log, SLURM logs,
#      scontrol: COMPLETED, exit 0, CPUs = the threads of its largest rule job and a time limit of at
#      least its rule jobs' runtimes summed (a group job runs them one after another),
#      GRAPHDR_DATA_MIRROR in the job environment,
#      fit/evaluate bundled into one group job) and that the outputs equal the local run's;
#   6. optionally (GRAPHDR_SLURM_ALLOC_CHECK=1, default) runs Snakemake itself inside a SLURM job
#      to check that submitting from inside an allocation works.
#
# The slurm clients inside a job read /etc/slurm/slurm.conf: the executor plugin strips SLURM_*
# variables (SLURM_CONF included) before its inner srun. So the script writes that file, and only
# when no foreign one exists; it removes it on exit.
#
# Exit status: 0 passed, 1 failed, 77 cannot run here (not root, no apt-get, a real SLURM
# installation present, ...). Environment knobs:
#   GRAPHDR_SLURM_TARGETS      targets (space-separated; default: two score files of the demo,
#                              under the results root of the config, output.results)
#   GRAPHDR_SLURM_CONFIGFILE   config overlay (default config/quick.yaml)
#   GRAPHDR_SLURM_SOURCE       directory whose workflow is copied (default: this repository)
#   GRAPHDR_SLURM_PYTHON       Python with snakemake + the slurm plugin (default .venv/bin/python)
#   GRAPHDR_SLURM_KEEP=1       keep the temporary directory (paths are printed)
#   GRAPHDR_SLURM_ALLOC_CHECK  1 (default) / 0: the inside-an-allocation run
#   GRAPHDR_SLURM_CTLD_PORT / GRAPHDR_SLURM_SLURMD_PORT   (default 16817 / 16818)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
SOURCE="${GRAPHDR_SLURM_SOURCE:-$REPO}"
PY="${GRAPHDR_SLURM_PYTHON:-$REPO/.venv/bin/python}"
CONFIGFILE="${GRAPHDR_SLURM_CONFIGFILE:-config/quick.yaml}"
CTLD_PORT="${GRAPHDR_SLURM_CTLD_PORT:-16817}"
SLURMD_PORT="${GRAPHDR_SLURM_SLURMD_PORT:-16818}"
ETC_CONF=/etc/slurm/slurm.conf
MARKER="# written by graphdr tests/slurm/run_slurm_test.sh"
STATE_FILE=/run/graphdr-slurm-test.state
LOCK_FILE=/run/lock/graphdr-slurm-test.lock
T0=$SECONDS

log() { printf '[slurm-test %4ds] %s\n' "$((SECONDS - T0))" "$*"; }
skip() { printf 'SKIP: %s\n' "$*" >&2; exit 77; }
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }

# ---- preconditions ------------------------------------------------------------------------
[ "$(id -u)" -eq 0 ] || skip "needs root (starts slurmctld/slurmd/munged, may apt-get install)"
[ -x "$PY" ] || skip "no Python at $PY (build the venv first: make test)"
"$PY" -c "import snakemake_executor_plugin_slurm" 2>/dev/null ||
    skip "snakemake-executor-plugin-slurm is not installed in $PY"

# Outputs live under the config's output roots (config/quick.yaml: results/quick/...): the
# default targets are built from the results root of config.yaml overlaid by CONFIGFILE.
RESULTS_ROOT="$(cd "$SOURCE" && "$PY" - "$CONFIGFILE" <<'PYEOF'
import sys

import yaml

root = "results"
for name in ("config/config.yaml", sys.argv[1]):
    with open(name, encoding="utf-8") as fh:
        root = (yaml.safe_load(fh) or {}).get("output", {}).get("results", root)
print(root)
PYEOF
)" || skip "cannot read output.results from config/config.yaml and $CONFIGFILE"
DEFAULT_TARGETS="$RESULTS_ROOT/scores/demo/wine/LDA_GE/seed0_fold0.csv"
DEFAULT_TARGETS="$DEFAULT_TARGETS $RESULTS_ROOT/scores/demo/wine/PCA_GE/seed0_fold0.csv"
read -r -a TARGETS <<<"${GRAPHDR_SLURM_TARGETS:-$DEFAULT_TARGETS}"
ALLOC_TARGET="${GRAPHDR_SLURM_ALLOC_TARGET:-$RESULTS_ROOT/prepared/wine.npz}"

mkdir -p "$(dirname "$LOCK_FILE")"
# Held by this shell only: every background process below is started with fd 9 closed, so a
# killed run's leftovers cannot keep the lock.
exec 9>"$LOCK_FILE"
flock -n 9 || skip "another run_slurm_test.sh holds $LOCK_FILE"

# Job-step daemons (slurmstepd) that outlived their slurmd: the ones still holding files under
# DIR (a temp dir of this script) are ours; stop them by PID.
kill_stray_stepd() {
    local p
    for p in /proc/[0-9]*; do
        [ "$(cat "$p/comm" 2>/dev/null)" = slurmstepd ] || continue
        if ls -l "$p/fd" 2>/dev/null | grep -qF "$1/"; then kill -9 "${p#/proc/}" 2>/dev/null; fi
    done
    return 0
}

# A run killed with SIGKILL cannot clean up: stop the daemons it recorded (by PID, only if the
# process still has that run's temp dir on its command line or as its working directory) and
# remove its files.
if [ -f "$STATE_FILE" ]; then
    read -r OLD_WORK OLD_PIDS <"$STATE_FILE" || true
    for pid in ${OLD_PIDS:-}; do
        [ -n "${OLD_WORK:-}" ] && [ -d "/proc/$pid" ] || continue
        if tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "$OLD_WORK" ||
            [[ "$(readlink "/proc/$pid/cwd")" == "$OLD_WORK"* ]]; then
            log "stopping process $pid left by an interrupted run"
            kill "$pid" 2>/dev/null || true
            for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
            kill -9 "$pid" 2>/dev/null || true
        fi
    done
    case "${OLD_WORK:-}" in
        /tmp/graphdr-slurm.*) kill_stray_stepd "$OLD_WORK" && rm -rf "$OLD_WORK" ;;
    esac
    if [ -f "$ETC_CONF" ] && head -1 "$ETC_CONF" | grep -qF "$MARKER"; then rm -f "$ETC_CONF"; fi
    rm -f "$STATE_FILE"
fi

if [ -f "$ETC_CONF" ] && ! head -1 "$ETC_CONF" | grep -qF "$MARKER"; then
    skip "$ETC_CONF exists and is not ours: this machine has a real SLURM setup; not touching it"
fi
for port in "$CTLD_PORT" "$SLURMD_PORT"; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        skip "port $port is in use (set GRAPHDR_SLURM_CTLD_PORT / GRAPHDR_SLURM_SLURMD_PORT)"
    fi
done

# ---- install ------------------------------------------------------------------------------
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null ||
    ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
    command -v apt-get >/dev/null || skip "slurm/munge missing and no apt-get to install them"
    log "installing slurm-wlm and munge with apt-get"
    t=$SECONDS
    export DEBIAN_FRONTEND=noninteractive
    APT_LOG="$(mktemp /tmp/graphdr-slurm-apt.XXXXXX)"
    timeout 600 apt-get update -qq >"$APT_LOG" 2>&1 ||
        { tail -n 5 "$APT_LOG" >&2; rm -f "$APT_LOG"; skip "apt-get update failed (no registry access?)"; }
    timeout 900 apt-get install -y -qq --no-install-recommends slurm-wlm munge >"$APT_LOG" 2>&1 ||
        { tail -n 5 "$APT_LOG" >&2; rm -f "$APT_LOG"; skip "apt-get install slurm-wlm munge failed"; }
    rm -f "$APT_LOG"
    log "installed slurm-wlm and munge in $((SECONDS - t)) s"
else
    log "slurm and munge already installed"
fi

# ---- temp dir, cleanup ----------------------------------------------------------------------
WORK="$(mktemp -d /tmp/graphdr-slurm.XXXXXX)"
chmod 755 "$WORK"
PIDS=()
CHILD=""
WROTE_ETC=0
stop_pid() { # TERM, up to 30 s grace, then KILL
    kill "$1" 2>/dev/null || return 0
    for _ in $(seq 150); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.2; done
    kill -9 "$1" 2>/dev/null || true
}
cleanup() {
    local rc=$?
    set +e
    trap - INT TERM
    log "cleaning up (status $rc)"
    if [ "${#PIDS[@]}" -gt 1 ]; then
        # Cancel whatever is still queued or running (only jobs of this private cluster exist).
        timeout 20 scancel --quiet --partition debug 2>/dev/null
    fi
    # A Snakemake run still going (interrupted): its `timeout -k 10` wrapper passes TERM on and
    # KILLs it 10 s later.
    [ -n "$CHILD" ] && stop_pid "$CHILD"
    if [ "${#PIDS[@]}" -gt 1 ]; then
        # Let slurmd see its job steps end (KillWait=10) before stopping it, or their
        # slurmstepd processes linger, retrying to report to a slurmd that is gone.
        for _ in $(seq 45); do
            [ -z "$(timeout 10 squeue --noheader --states=PD,R,CG,S -o %i 2>/dev/null)" ] && break
            sleep 1
        done
    fi
    # Stop the daemons we started, newest first, by PID.
    local i
    for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do stop_pid "${PIDS[$i]}"; done
    kill_stray_stepd "$WORK"
    [ "$WROTE_ETC" -eq 1 ] && rm -f "$ETC_CONF"
    rm -f "$STATE_FILE"
    if [ "${GRAPHDR_SLURM_KEEP:-0}" = 1 ]; then
        log "kept $WORK"
    else
        rm -rf "$WORK"
    fi
    log "finished with status $rc after $((SECONDS - T0)) s"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
record_pid() {
    PIDS+=("$1")
    echo "$WORK ${PIDS[*]} $CHILD" >"$STATE_FILE"
}
# run_in DIR LOG SECONDS CMD...: run CMD in DIR with output to LOG, killed after SECONDS. It runs
# in the background and we `wait`, so an INT/TERM trap fires at once instead of after CMD.
run_in() {
    local dir=$1 out=$2 limit=$3 rc=0
    shift 3
    (cd "$dir" && exec timeout -k 10 "$limit" "$@") </dev/null >"$out" 2>&1 9>&- &
    CHILD=$!
    echo "$WORK ${PIDS[*]} $CHILD" >"$STATE_FILE"
    wait "$CHILD" || rc=$?
    CHILD=""
    return "$rc"
}
wait_for() { # wait_for SECONDS DESCRIPTION COMMAND...
    local limit=$1 what=$2
    shift 2
    local end=$((SECONDS + limit))
    until "$@" >/dev/null 2>&1; do
        [ $SECONDS -lt $end ] || return 1
        sleep 1
    done
    log "$what after $((SECONDS - end + limit)) s"
}

# ---- munge ---------------------------------------------------------------------------------
MUNGE="$WORK/munge"
mkdir -m 700 "$MUNGE"
if command -v mungekey >/dev/null; then
    mungekey --create --keyfile="$MUNGE/munge.key"
else
    dd if=/dev/urandom of="$MUNGE/munge.key" bs=1024 count=1 status=none
fi
chmod 400 "$MUNGE/munge.key"
# --force: munged refuses a socket under world-writable /tmp otherwise.
munged --foreground --force --socket="$MUNGE/munge.socket" --key-file="$MUNGE/munge.key" \
    --pid-file="$MUNGE/munged.pid" --seed-file="$MUNGE/munged.seed" \
    --log-file="$MUNGE/munged.log" </dev/null >"$MUNGE/munged.out" 2>&1 9>&- &
record_pid $!
munge_ok() { munge -S "$MUNGE/munge.socket" -n | unmunge -S "$MUNGE/munge.socket"; }
wait_for 20 "munged answers" munge_ok || fail "munged did not start: $(cat "$MUNGE/munged.out")"

# ---- slurm.conf and daemons -----------------------------------------------------------------
NODENAME="$(hostname -s)"
NCPUS="$(nproc --all)"  # --all: not lowered by OMP_NUM_THREADS in the environment
MEM_TOTAL_MB=$(($(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024))
MARGIN_MB=$((MEM_TOTAL_MB / 10 > 1024 ? MEM_TOTAL_MB / 10 : 1024))
MEM_MB=$((MEM_TOTAL_MB - MARGIN_MB))
mkdir -p "$WORK/state/ctld" "$WORK/state/slurmd"
{
    echo "$MARKER (temporary; removed when the script exits)"
    sed -e "s|@NODENAME@|$NODENAME|g" -e "s|@NODEADDR@|127.0.0.1|g" \
        -e "s|@CTLD_PORT@|$CTLD_PORT|g" -e "s|@SLURMD_PORT@|$SLURMD_PORT|g" \
        -e "s|@MUNGE_SOCKET@|$MUNGE/munge.socket|g" -e "s|@STATE_DIR@|$WORK/state|g" \
        -e "s|@CPUS@|$NCPUS|g" -e "s|@MEM_MB@|$MEM_MB|g" "$HERE/slurm.conf.in"
} >"$WORK/slurm.conf"
mkdir -p /etc/slurm
cp "$WORK/slurm.conf" "$ETC_CONF"
WROTE_ETC=1
export SLURM_CONF="$ETC_CONF"
SLURM_VERSION="$(sinfo --version 2>/dev/null || true)"
log "slurm.conf: node $NODENAME, $NCPUS CPUs, $MEM_MB MB (of $MEM_TOTAL_MB), $SLURM_VERSION"

slurmctld -D -f "$WORK/slurm.conf" </dev/null >"$WORK/state/slurmctld.out" 2>&1 9>&- &
record_pid $!
slurmd -D -f "$WORK/slurm.conf" -N "$NODENAME" </dev/null >"$WORK/state/slurmd.out" 2>&1 9>&- &
record_pid $!
node_idle() { [ "$(sinfo --noheader --nodes="$NODENAME" --format=%t)" = idle ]; }
if ! wait_for 90 "node $NODENAME idle" node_idle; then
    sinfo >&2 || true
    tail -n 20 "$WORK/state/slurmctld.log" "$WORK/state/slurmd.log" >&2 || true
    fail "the SLURM node did not become idle within 90 s"
fi

# ---- two copies of the workflow -----------------------------------------------------------
copy_workflow() {
    mkdir -p "$1"
    (cd "$SOURCE" && tar -cf - --exclude=__pycache__ --exclude='*.egg-info' \
        Snakefile workflow config envs profiles src) | tar -xf - -C "$1"
}
copy_workflow "$WORK/local"
copy_workflow "$WORK/slurm"
# Data files come from the offline mirror when there is one; the jobs must see it too.
if [ -z "${GRAPHDR_DATA_MIRROR:-}" ] && [ -d "$REPO/../shared/datasets" ]; then
    GRAPHDR_DATA_MIRROR="$(cd "$REPO/../shared/datasets" && pwd)"
fi
export GRAPHDR_DATA_MIRROR="${GRAPHDR_DATA_MIRROR:-$WORK/no-mirror}"
ENV_CHECK=(--env "GRAPHDR_DATA_MIRROR=$GRAPHDR_DATA_MIRROR")
# Same numba cache for both runs (compiled once).
export NUMBA_CACHE_DIR="${NUMBA_CACHE_DIR:-$WORK/numba-cache}"
SNAKEMAKE=("$PY" -m snakemake)

log "local run: ${TARGETS[*]} (--cores $NCPUS)"
t=$SECONDS
# `--workflow-profile none`: the local run must not pick up a profiles/default if one appears.
run_in "$WORK/local" "$WORK/local.log" 900 "${SNAKEMAKE[@]}" "${TARGETS[@]}" --cores "$NCPUS" \
    --workflow-profile none --configfile "$CONFIGFILE" ||
    { tail -n 40 "$WORK/local.log" >&2; fail "local run failed (log above)"; }
LOCAL_S=$((SECONDS - t))
log "local run done in $LOCAL_S s"

# The profile's default-resources with the test cluster's partition and no account (a
# command-line --default-resources replaces the profile's whole block).
mapfile -t DEFAULT_RES < <("$PY" "$HERE/check_slurm_run.py" default-resources \
    "$WORK/slurm/profiles/slurm/config.yaml" debug)
SLURM_ARGS=(--workflow-profile profiles/slurm --default-resources "${DEFAULT_RES[@]}"
    --cores "$NCPUS" --slurm-status-command squeue --slurm-init-seconds-before-status-checks 5
    --verbose)
log "SLURM run: ${SLURM_ARGS[*]}"
t=$SECONDS
run_in "$WORK/slurm" "$WORK/slurm.log" 900 "${SNAKEMAKE[@]}" "${TARGETS[@]}" "${SLURM_ARGS[@]}" \
    --configfile "$CONFIGFILE" ||
    { grep -v "^environment:" "$WORK/slurm.log" | tail -n 60 >&2; fail "SLURM run failed (log above)"; }
SLURM_S=$((SECONDS - t))
log "SLURM run done in $SLURM_S s"

# ---- checks -------------------------------------------------------------------------------
N_RULE_JOBS=$(grep -c "^Finished jobid" "$WORK/slurm.log" || true)
log "checking the SLURM jobs ($N_RULE_JOBS rule jobs finished)"
# The default targets need fit_embed + evaluate_embedding, so one job must be their group.
"$PY" "$HERE/check_slurm_run.py" jobs "$WORK/slurm.log" --min-jobs 1 --group fit_evaluate \
    "${ENV_CHECK[@]}" || fail "SLURM job checks failed"
N_SLURM_JOBS=$(grep -c "has been submitted with SLURM jobid" "$WORK/slurm.log" || true)
[ "$N_SLURM_JOBS" -lt "$N_RULE_JOBS" ] ||
    fail "grouping did not reduce the job count ($N_SLURM_JOBS SLURM jobs for $N_RULE_JOBS rule jobs)"
LOGS=$(find "$WORK/slurm/.snakemake/slurm_logs" -name '*.log' | wc -l)
[ "$LOGS" -eq "$N_SLURM_JOBS" ] || fail "$LOGS SLURM log files for $N_SLURM_JOBS jobs"
log "$N_SLURM_JOBS sbatch jobs for $N_RULE_JOBS rule jobs; $LOGS logs under .snakemake/slurm_logs"

log "comparing outputs with the local run"
(cd "$WORK/local" && "${SNAKEMAKE[@]}" "${TARGETS[@]}" --workflow-profile none --summary \
    --configfile "$CONFIGFILE" >"$WORK/summary.tsv" 2>"$WORK/summary.err") ||
    fail "snakemake --summary failed"
"$PY" "$HERE/check_slurm_run.py" compare "$WORK/local" "$WORK/slurm" "$WORK/summary.tsv" ||
    fail "SLURM outputs differ from the local run"

# ---- Snakemake started from inside an allocation ------------------------------------------
ALLOC_S=skipped
if [ "${GRAPHDR_SLURM_ALLOC_CHECK:-1}" = 1 ]; then
    # One CPU for the controlling Snakemake, the other for its 1-thread job.
    rm -rf "${WORK:?}/slurm/$RESULTS_ROOT/prepared" "$WORK/slurm/.snakemake/slurm_logs"
    INNER="cd $WORK/slurm && ${SNAKEMAKE[*]} $ALLOC_TARGET --force ${SLURM_ARGS[*]}"
    INNER="$INNER --configfile $CONFIGFILE > $WORK/alloc.log 2>&1"
    log "SLURM run from inside an allocation: $ALLOC_TARGET"
    t=$SECONDS
    OUTER=$(sbatch --parsable --job-name graphdr-outer --ntasks=1 --cpus-per-task=1 --mem=2000 \
        -t 20 -o "$WORK/outer.log" --wrap "$INNER")
    outer_done() { [ -z "$(squeue --noheader --jobs "$OUTER" --states=PD,R,CG -o %i)" ]; }
    wait_for 600 "outer job $OUTER ended" outer_done || fail "outer job $OUTER did not finish"
    OUTER_STATE=$(scontrol show job --oneliner "$OUTER" | grep -o 'JobState=[A-Z]*')
    ALLOC_S=$((SECONDS - t))
    [ "$OUTER_STATE" = JobState=COMPLETED ] ||
        { tail -n 40 "$WORK/alloc.log" >&2; fail "outer job: $OUTER_STATE"; }
    grep -q "running snakemake in a SLURM job context" "$WORK/alloc.log" ||
        fail "the plugin did not notice the allocation"
    "$PY" "$HERE/check_slurm_run.py" jobs "$WORK/alloc.log" --min-jobs 1 "${ENV_CHECK[@]}" ||
        fail "inner SLURM job checks failed"
    cmp "$WORK/local/$ALLOC_TARGET" "$WORK/slurm/$ALLOC_TARGET" ||
        fail "$ALLOC_TARGET from inside the allocation differs from the local run"
    log "inside-allocation run done in $ALLOC_S s"
fi

log "PASSED: local ${LOCAL_S}s, SLURM ${SLURM_S}s, inside allocation ${ALLOC_S}s," \
    "$N_SLURM_JOBS sbatch jobs for $N_RULE_JOBS rule jobs"
