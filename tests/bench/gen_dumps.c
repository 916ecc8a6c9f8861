/* gen_dumps.c — writes the Flight Recorder dumps of a synthetic, self-consistent Megatron-style
 * job (one PyTorch pickle per rank), for benchmarks and story tests.
 *
 *   gen_dumps --ranks N --entries E [--frames] [--faults K] [--version 2.9|2.10] [--seed S]
 *             [--json] [--prefix nccl_trace_rank_] [--tp T] [--pp P] [--ep X] [--microbatches M]
 *             [--layers L] [--jobs J] [--every K] [--jitter-ms J] [--slow-ranks R --slow-ms D]
 *             [--durations] [--slow-gpu R --slow-gpu-factor F] [--cascade]
 *             [--clock-drift-ms D] [--node-offset-ms O] [--period P] OUTDIR
 *
 * How it works.
 * Topology: the world of N ranks is split Megatron-style into tensor-parallel groups (TP, 8
 * consecutive ranks, one node), pipeline stages (PP, 4) and data-parallel replicas (DP, the
 * rest); rank = tp + TP * (dp + DP * pp). Every rank belongs to the default group, one DP, TP
 * and PP group and, with --ep, one expert group (a block of X data-parallel replicas). Groups
 * are named like PyTorch names them ("0", "1", ...: one global counter over every group created,
 * so names are unique per group); pg_id is the rank's own creation index of the groups it is in.
 *
 * Program: every rank runs the same training step, specialised by its pipeline stage: for each
 * micro-batch a forward (TP broadcasts of the batch on the first and last stage, recv from the
 * previous stage, per layer TP _all_gather_base/_reduce_scatter_base pairs and expert
 * all_to_alls, send to the next stage), then the backwards in the mirror image, then the DP
 * gradient all_reduces (without data parallelism, an all_reduce on the default group instead);
 * every tenth step (every P-th with --period P; never with --period 0, and then, with data
 * parallelism, the default group runs nothing and is in no pg_config) starts with an all_reduce
 * on the default group.
 * Group counters (collective_seq_id per group, p2p_seq_id per rank and group as torch counts it,
 * op_id, record_id per rank) follow from running that program, so every member of a group issues
 * the same collectives with the same sequence ids, sizes and dtypes, and each send has its recv.
 *
 * Time: the job is assumed to have run `hist` steps before the ring window (their counters are
 * added in closed form from one period of steps), then `window` completed steps, then one last
 * step in which it hangs. That last step is simulated for the whole world at once: ranks issue
 * operations in program order, at most LOOKAHEAD beyond their oldest incomplete one; an
 * operation completes when every member has it as its oldest incomplete one (one stream per
 * rank); the step's last operation never completes (the dump is a snapshot taken while it runs).
 * Without faults every rank therefore ends with its final DP all_reduce in flight and everything
 * else completed. A fault (--faults K) is a rank that stops issuing before a TP collective of that
 * step; its group waits in that collective and the hang spreads through the simulation. The K
 * culprits are placed in independent data-parallel replicas and printed on stdout as
 * "culprit_ranks: r1 r2 ..." (an empty list without faults). Statistics go to stderr.
 *
 * Speed: an operation's arrival (time_created_ns) is its slot in the step plus a jitter drawn per
 * rank and operation in [0, --jitter-ms) (default 2 ms, at most half a slot), so a healthy job's
 * ranks arrive a few milliseconds apart in no fixed order. --slow-ranks R (a list: 3, 3,9 or 8-15)
 * makes those ranks arrive --slow-ms D (default 40) later at every operation: stragglers, or with a
 * block of ranks a slow node. A completed operation is discovered complete when its last member can
 * have arrived, plus STEP_NS/1024. --durations writes duration_ms (about 1 ms, as PyTorch does with
 * timing on), and --slow-gpu R multiplies those ranks' durations by --slow-gpu-factor F (default
 * 8): a slow GPU. When asked for, the slow ranks are printed on stdout as "slow_ranks: ..." and
 * "slow_gpus: ...", after the culprits' line.
 *
 * Waiting (--cascade): without it a rank never waits, whatever its operations wait for, as when
 * NCCL calls return at once and the CPU runs ahead: a slow rank is late by the same 40 ms at every
 * operation and delays nobody's next. With it every operation holds its callers until it
 * completed: a rank arrives at its planned time or, if its previous operation completed later,
 * shortly after that completion (simulate_cascade), so that a slow rank's peers, having waited
 * for it, arrive late at their next operations, in other groups, and the delay spreads through
 * the job as it does when ranks synchronize (blocking backends, .item(), stream syncs).
 *
 * Clocks: every rank's timestamps are read from its own clock. --node-offset-ms O sets each
 * node's (tensor-parallel group's) clock O ms or less ahead or behind, drawn per node;
 * --clock-drift-ms D lets the pipeline stages' clocks drift apart over the window, linearly from
 * none at its start to D ms ahead at its end for the last stage (stage s gains s/(P-1) of it):
 * the same collective then looks created up to D ms apart. Both move time_created_ns and
 * time_discovered_completed_ns alike, as one clock would.
 *
 * Output (--every K: only ranks 0, K, 2K, ... write a dump, as when most of a huge job's dumps
 * are lost or were never collected; the job and its groups are the same): each rank's last E
 * entries are written through the project's streaming pickle writer (formats/pickle_write.h) in
 * torch's byte layout for version 2.9 (nccl_version, trailing top-level BINPUT) or 2.10
 * (comm_lib_version, none). With --frames every entry carries a Python stack from a shared pool; a
 * frame dict referenced at least twice in a file is memoized (BINPUT after its first emission,
 * BINGET later), as torch does. Strings are handed to the writer once per file; repeats reuse the
 * writer's memo id by address (put_str), which emits the very BINGET the writer would. With --json
 * each rank's dump is the same content in PyTorch's JSON layout (`_dump_nccl_trace_json`: keys
 * sorted, compact, no frames, time_discovered_* 0 for None, pg_status values as strings,
 * "nccl_comm_state": {}): the pickle is written into memory, decoded and written again by
 * formats/dump_write's JSON writer, and the file is named with a ".json" suffix. Ranks are spread
 * over J threads (default: the number of CPUs), each with its own writer and buffers.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dump.h"
#include "dump_write.h"
#include "pickle_write.h"

enum { G_DEF, G_DP, G_TP, G_PP, G_EP, G_N };
enum { OP_AR, OP_AG, OP_RS, OP_BC, OP_A2A, OP_SEND, OP_RECV };
enum { DT_BF16, DT_FLOAT, DT_LONG };
enum { TH_MAIN, TH_AUTOGRAD };
enum { ST_DONE, ST_SCHED };

enum {
    LOOKAHEAD = 3, /* operations a rank may have in flight */
    MAX_SHAPES = 64,
    MEMO_SLOTS = 1 << 13,
    OUT_BUF = 1 << 20,
};

#define STEP_NS 1500000000LL /* one training step */

static const char *const DESC[G_N] = { "default_pg", "DATA_PARALLEL_GROUP",
                                       "TENSOR_MODEL_PARALLEL_GROUP",
                                       "PIPELINE_MODEL_PARALLEL_GROUP",
                                       "EXPERT_MODEL_PARALLEL_GROUP" };
static const char *const OPNAME[] = { "nccl:all_reduce",
                                      "nccl:_all_gather_base",
                                      "nccl:_reduce_scatter_base",
                                      "nccl:broadcast",
                                      "nccl:all_to_all",
                                      NULL,
                                      NULL };
static const char *const DTYPE[] = { "BFloat16", "Float", "Long" };
static const char *const THREAD_NAME[] = { "pt_main_thread", "pt_autograd_0" };
static const char *const STATE[] = { "completed", "scheduled" };

/* --- stack frame pool ------------------------------------------------------------------- */

typedef struct frame {
    const char *name, *file;
    int line;
} frame;

#define DC10D    "/usr/local/lib/python3.12/dist-packages/torch/distributed/distributed_c10d.py"
#define LOGGER   "/usr/local/lib/python3.12/dist-packages/torch/distributed/c10d_logger.py"
#define MODULE   "/usr/local/lib/python3.12/dist-packages/torch/nn/modules/module.py"
#define FUNCTION "/usr/local/lib/python3.12/dist-packages/torch/autograd/function.py"
#define MEG      "/workspace/megatron-lm/megatron/core/"
#define TRAIN    "/workspace/megatron-lm/megatron/training/training.py"

static const frame FRAMES[] = {
    /* 0 */ { "all_reduce", DC10D, 2950 },
    { "wrapper", LOGGER, 81 },
    { "_all_gather_base", DC10D, 3932 },
    { "_reduce_scatter_base", DC10D, 4401 },
    { "broadcast", DC10D, 2806 },
    /* 5 */ { "all_to_all_single", DC10D, 4676 },
    { "isend", DC10D, 2544 },
    { "irecv", DC10D, 2590 },
    { "_wrapped_call_impl", MODULE, 1773 },
    { "_call_impl", MODULE, 1784 },
    /* 10 */ { "apply", FUNCTION, 576 },
    { "_gather_along_first_dim", MEG "tensor_parallel/mappings.py", 248 },
    { "forward", MEG "tensor_parallel/mappings.py", 371 },
    { "_reduce_scatter_along_first_dim", MEG "tensor_parallel/mappings.py", 291 },
    { "forward", MEG "tensor_parallel/mappings.py", 396 },
    /* 15 */ { "forward", MEG "tensor_parallel/layers.py", 911 },
    { "forward", MEG "tensor_parallel/layers.py", 1131 },
    { "forward", MEG "transformer/attention.py", 684 },
    { "forward", MEG "transformer/mlp.py", 148 },
    { "forward", MEG "transformer/transformer_layer.py", 398 },
    /* 20 */ { "forward", MEG "transformer/transformer_block.py", 549 },
    { "forward", MEG "models/gpt/gpt_model.py", 339 },
    { "forward", MEG "distributed/data_parallel_base.py", 22 },
    { "forward_step", "/workspace/megatron-lm/pretrain_gpt.py", 288 },
    { "forward_step", MEG "pipeline_parallel/schedules.py", 289 },
    /* 25 */
    { "forward_backward_pipelining_without_interleaving", MEG "pipeline_parallel/schedules.py",
      1918 },
    { "train_step", TRAIN, 1217 },
    { "train", TRAIN, 1986 },
    { "pretrain", TRAIN, 751 },
    { "<module>", "/workspace/megatron-lm/pretrain_gpt.py", 345 },
    /* 30 */ { "backward", MEG "tensor_parallel/mappings.py", 376 },
    { "backward", MEG "tensor_parallel/mappings.py", 401 },
    { "_p2p_ops", MEG "pipeline_parallel/p2p_communication.py", 231 },
    { "_communicate", MEG "pipeline_parallel/p2p_communication.py", 345 },
    { "send_forward", MEG "pipeline_parallel/p2p_communication.py", 465 },
    /* 35 */ { "recv_forward", MEG "pipeline_parallel/p2p_communication.py", 420 },
    { "send_backward", MEG "pipeline_parallel/p2p_communication.py", 484 },
    { "recv_backward", MEG "pipeline_parallel/p2p_communication.py", 440 },
    { "start_grad_sync", MEG "distributed/param_and_grad_buffer.py", 391 },
    { "finish_grad_sync", MEG "distributed/distributed_data_parallel.py", 433 },
    /* 40 */ { "finalize_model_grads", MEG "distributed/finalize_model_grads.py", 267 },
    { "_broadcast", MEG "utils.py", 655 },
    { "get_batch_on_this_tp_rank", MEG "utils.py", 688 },
    { "get_batch", "/workspace/megatron-lm/pretrain_gpt.py", 150 },
    { "check_for_nan_in_loss", TRAIN, 1190 },
    /* 45 */ { "forward", MEG "transformer/moe/token_dispatcher.py", 512 },
    { "token_permutation", MEG "transformer/moe/token_dispatcher.py", 611 },
    { "forward", MEG "transformer/moe/moe_layer.py", 148 },
    { "backward", MEG "tensor_parallel/mappings.py", 415 },
};
enum { NFRAMES = sizeof FRAMES / sizeof FRAMES[0] };

/* Stacks, innermost first, -1 terminated. The nn.Module call frames repeat inside one stack. */
#define OUTER 23, 24, 25, 26, 27, 28, 29
#define NEST  9, 8
static const int STACKS[][40] = {
    /* 0 TP all_gather fwd */
    { 2, 1, 11, 12, 10, 15, NEST, 17, NEST, 19, NEST, 20, NEST, 21, NEST, 22, NEST, OUTER, -1 },
    /* 1 TP reduce_scatter fwd */
    { 3, 1, 13, 14, 10, 16, NEST, 18, NEST, 19, NEST, 20, NEST, 21, NEST, 22, NEST, OUTER, -1 },
    /* 2 TP bwd (autograd thread: only the custom Function's backward) */
    { 3, 1, 13, 30, 10, -1 },
    { 2, 1, 11, 31, 10, -1 },
    /* 4 broadcast of the batch */
    { 4, 1, 41, 42, 43, OUTER, -1 },
    /* 5 p2p */
    { 6, 32, 33, 34, 25, 26, 27, 28, 29, -1 },
    { 7, 32, 33, 35, 25, 26, 27, 28, 29, -1 },
    { 6, 32, 33, 36, 25, 26, 27, 28, 29, -1 },
    { 7, 32, 33, 37, 25, 26, 27, 28, 29, -1 },
    /* 9 DP grad all_reduce */
    { 0, 1, 38, 39, 40, 25, 26, 27, 28, 29, -1 },
    /* 10 default all_reduce */
    { 0, 1, 44, 26, 27, 28, 29, -1 },
    /* 11 expert all_to_all fwd / bwd */
    { 5, 1, 45, 10, 46, 47, NEST, 19, NEST, 20, NEST, 21, NEST, 22, NEST, OUTER, -1 },
    { 5, 1, 48, 10, -1 },
};
enum { NSTACKS = sizeof STACKS / sizeof STACKS[0] };
enum {
    SK_AG,
    SK_RS,
    SK_RS_BWD,
    SK_AG_BWD,
    SK_BC,
    SK_SEND_F,
    SK_RECV_F,
    SK_SEND_B,
    SK_RECV_B,
    SK_DP,
    SK_DEF,
    SK_A2A,
    SK_A2A_BWD
};

/* --- job description -------------------------------------------------------------------- */

typedef struct shape {
    int ndim;
    int64_t d[3];
} shape;

typedef struct op {
    uint8_t g, kind, thread, stack, dt_in, dt_out, state, final;
    uint8_t phase; /* p2p: 0 forward, 1 backward */
    int16_t peer;  /* p2p: peer's group rank (stage) */
    uint16_t sh_in, sh_out, mb, index;
    int64_t coll_seq, p2p_seq, op_id, record_id, time_ns, done_ns;
} op;

typedef struct counters {
    int64_t coll[G_N], p2p[G_N], rid;
} counters;

typedef struct job {
    int n, tp, pp, dp, ep, nmb, nlayers, entries, faults, version, jobs, every;
    int period; /* --period: the default-group all_reduce comes every `period` steps */
    bool frames, json, durations;
    uint64_t seed;
    int64_t jitter_ns, slow_ns;    /* --jitter-ms, --slow-ms */
    bool cascade;                  /* --cascade */
    int64_t drift_ns, node_off_ns; /* --clock-drift-ms, --node-offset-ms */
    double gpu_factor;             /* --slow-gpu-factor */
    const char *slow_list, *gpu_list;
    bool *slow, *slow_gpu; /* per rank */
    bool *slow_in[G_N];    /* per group of each kind: a slow rank is a member */
    const char *prefix, *outdir;
    int64_t hist_steps, window_steps, t0, slot_ns;
    int max_step_ops;
    bool active[G_N];
    int ngroups[G_N], name_base[G_N];
    char **names, **ranks_str; /* by global group id */
    char **p2p_names;          /* [stage * 4 + {send next, send prev, recv prev, recv next}] */
    shape shapes[MAX_SHAPES];
    int nshapes;
    int sh_hidden, sh_hidden_part, sh_tokens, sh_scalar, sh_a2a, sh_bucket[2];
    counters hist[64]; /* per stage: counters after hist_steps */
    /* the hang step, simulated */
    uint16_t *issued, *done;
    /* --cascade: per rank its window operations' arrivals and completions, from c_at[r] */
    size_t *c_at;
    int64_t *c_arrive, *c_done;
    int *culprits;
    /* results */
    uint64_t bytes, nentries;
    int failed;
    pthread_mutex_t lock;
} job;

typedef struct rankpos {
    int r, tp, dp, pp;
} rankpos;

static rankpos pos_of(const job *j, int r) {
    rankpos p = { r, r % j->tp, (r / j->tp) % j->dp, r / (j->tp * j->dp) };
    return p;
}

/* Group index (within its kind) of rank p's group of kind g. */
static int group_index(const job *j, rankpos p, int g) {
    switch (g) {
    case G_DP: return p.pp * j->tp + p.tp;
    case G_TP: return p.r / j->tp;
    case G_PP: return p.dp * j->tp + p.tp;
    case G_EP: return (p.pp * j->tp + p.tp) * (j->dp / j->ep) + p.dp / j->ep;
    default: return 0;
    }
}

static int group_size(const job *j, int g) {
    const int size[G_N] = { j->n, j->dp, j->tp, j->pp, j->ep };
    return size[g];
}

/* The k-th member (global rank) of group `idx` of kind g. */
static int member_of(const job *j, int g, int idx, int k) {
    int per_dp = j->dp / j->ep;
    switch (g) {
    case G_DP: return idx % j->tp + j->tp * (k + j->dp * (idx / j->tp));
    case G_TP: return idx * j->tp + k;
    case G_PP: return idx % j->tp + j->tp * (idx / j->tp) + j->tp * j->dp * k;
    case G_EP: {
        int tpi = (idx / per_dp) % j->tp, ppi = (idx / per_dp) / j->tp, blk = idx % per_dp;
        return tpi + j->tp * (blk * j->ep + k + j->dp * ppi);
    }
    default: return k;
    }
}

/* The rank's local pg_id for kind g: creation order among the kinds it is active in. */
static int pg_id_of(const job *j, int g) {
    int id = 0;
    for (int k = 0; k < g; k++) id += j->active[k];
    return id;
}

/* --- small helpers ---------------------------------------------------------------------- */

static uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static void *xmalloc(size_t n) {
    void *p = calloc(1, n ? n : 1);
    if (!p) {
        fprintf(stderr, "gen_dumps: out of memory (%zu bytes)\n", n);
        exit(2);
    }
    return p;
}

static char *xstrdup(const char *s) {
    char *d = xmalloc(strlen(s) + 1);
    strcpy(d, s);
    return d;
}

static int add_shape(job *j, int ndim, int64_t a, int64_t b, int64_t c) {
    shape s = { ndim, { a, b, c } };
    j->shapes[j->nshapes] = s;
    return j->nshapes++;
}

/* "[r0, r1, ...]" as torch's ranks_str writes it. */
static char *ranks_string(const job *j, int g, int idx) {
    int size = group_size(j, g);
    size_t cap = (size_t)size * 8 + 3, len = 0;
    char *s = xmalloc(cap);
    s[len++] = '[';
    for (int k = 0; k < size; k++)
        len += (size_t)snprintf(s + len, cap - len, k ? ", %d" : "%d", member_of(j, g, idx, k));
    s[len++] = ']';
    s[len] = 0;
    return s;
}

/* --- the training program --------------------------------------------------------------- */

typedef struct stepgen {
    const job *j;
    rankpos p;
    counters *c;
    op *out;
    int n;
    int64_t step;
} stepgen;

static op *next_op(stepgen *s, int g, int kind, int stack, int thread) {
    op *o = &s->out[s->n];
    memset(o, 0, sizeof *o);
    o->g = (uint8_t)g;
    o->kind = (uint8_t)kind;
    o->stack = (uint8_t)stack;
    o->thread = (uint8_t)thread;
    o->index = (uint16_t)s->n;
    o->record_id = s->c->rid++;
    const job *j = s->j;
    int64_t base = j->t0 + s->step * STEP_NS + (int64_t)s->n * j->slot_ns;
    int64_t jitter = j->jitter_ns < j->slot_ns / 2 ? j->jitter_ns : j->slot_ns / 2;
    uint64_t draw = mix(j->seed ^ (uint64_t)s->p.r * 0x9e3779b97f4a7c15ull ^
                        (uint64_t)(s->step * 65536 + s->n));
    o->time_ns = base + (jitter > 0 ? (int64_t)(draw % (uint64_t)jitter) : 0) +
                 (j->slow[s->p.r] ? j->slow_ns : 0);
    /* a collective ends once its last member arrived: later where a slow rank is a member */
    bool waits = j->slow_in[g] && j->slow_in[g][group_index(j, s->p, g)];
    o->done_ns = base + jitter + (waits ? j->slow_ns : 0) + STEP_NS / 1024;
    s->n++;
    return o;
}

/* The next op of group g, counted as a collective or as a p2p op: its seq ids and op id. */
static op *counted_op(stepgen *s, int g, int kind, int stack, int thread, bool is_p2p) {
    op *o = next_op(s, g, kind, stack, thread);
    counters *c = s->c;
    if (is_p2p)
        ++c->p2p[g];
    else
        ++c->coll[g];
    o->coll_seq = c->coll[g];
    o->p2p_seq = c->p2p[g];
    o->op_id = c->coll[g] + c->p2p[g];
    return o;
}

static void coll(stepgen *s, int g, int kind, int sh_in, int sh_out, int dt, int stack,
                 int thread) {
    if (!s->j->active[g]) return;
    op *o = counted_op(s, g, kind, stack, thread, false);
    o->sh_in = (uint16_t)sh_in;
    o->sh_out = (uint16_t)sh_out;
    o->dt_in = o->dt_out = (uint8_t)dt;
}

static void p2p(stepgen *s, int kind, int peer, int phase, int mb, int stack, int thread) {
    if (!s->j->active[G_PP]) return;
    op *o = counted_op(s, G_PP, kind, stack, thread, true);
    o->peer = (int16_t)peer;
    o->phase = (uint8_t)phase;
    o->mb = (uint16_t)mb;
    o->sh_in = o->sh_out = (uint16_t)s->j->sh_hidden;
    o->dt_in = o->dt_out = DT_BF16;
}

static void layers(stepgen *s, int bwd) {
    const job *j = s->j;
    int th = bwd ? TH_AUTOGRAD : TH_MAIN;
    int ag = bwd ? SK_AG_BWD : SK_AG, rs = bwd ? SK_RS_BWD : SK_RS;
    int a2a = bwd ? SK_A2A_BWD : SK_A2A;
    for (int l = 0; l < j->nlayers; l++) {
        coll(s, G_TP, OP_AG, j->sh_hidden_part, j->sh_hidden, DT_BF16, ag, th);
        coll(s, G_TP, OP_RS, j->sh_hidden, j->sh_hidden_part, DT_BF16, rs, th);
        coll(s, G_EP, OP_A2A, j->sh_a2a, j->sh_a2a, DT_BF16, a2a, th);
        coll(s, G_EP, OP_A2A, j->sh_a2a, j->sh_a2a, DT_BF16, a2a, th);
        coll(s, G_TP, OP_AG, j->sh_hidden_part, j->sh_hidden, DT_BF16, ag, th);
        coll(s, G_TP, OP_RS, j->sh_hidden, j->sh_hidden_part, DT_BF16, rs, th);
    }
}

static void forward(stepgen *s, int mb) {
    const job *j = s->j;
    int stage = s->p.pp;
    if (stage == 0 || stage == j->pp - 1) {
        coll(s, G_TP, OP_BC, j->sh_tokens, j->sh_tokens, DT_LONG, SK_BC, TH_MAIN);
        coll(s, G_TP, OP_BC, j->sh_tokens, j->sh_tokens, DT_LONG, SK_BC, TH_MAIN);
        coll(s, G_TP, OP_BC, j->sh_tokens, j->sh_tokens, DT_FLOAT, SK_BC, TH_MAIN);
    }
    if (stage > 0) p2p(s, OP_RECV, stage - 1, 0, mb, SK_RECV_F, TH_MAIN);
    layers(s, 0);
    if (stage < j->pp - 1) p2p(s, OP_SEND, stage + 1, 0, mb, SK_SEND_F, TH_MAIN);
}

static void backward(stepgen *s, int mb) {
    const job *j = s->j;
    int stage = s->p.pp;
    if (stage < j->pp - 1) p2p(s, OP_RECV, stage + 1, 1, mb, SK_RECV_B, TH_MAIN);
    layers(s, 1);
    if (stage > 0) p2p(s, OP_SEND, stage - 1, 1, mb, SK_SEND_B, TH_MAIN);
}

/* Appends one training step of rank p to out[]; returns the number of operations. */
static int gen_step(const job *j, rankpos p, counters *c, int64_t step, op *out) {
    stepgen s = { j, p, c, out, 0, step };
    if (j->period > 0 && step % j->period == 0)
        coll(&s, G_DEF, OP_AR, j->sh_scalar, j->sh_scalar, DT_FLOAT, SK_DEF, TH_MAIN);
    for (int mb = 0; mb < j->nmb; mb++) forward(&s, mb);
    for (int mb = 0; mb < j->nmb; mb++) backward(&s, mb);
    int b = p.pp == 0 ? 1 : 0; /* the first stage also holds the embedding */
    coll(&s, G_DP, OP_AR, j->sh_bucket[b], j->sh_bucket[b], DT_FLOAT, SK_DP, TH_MAIN);
    coll(&s, G_DP, OP_AR, j->sh_bucket[0], j->sh_bucket[0], DT_FLOAT, SK_DP, TH_MAIN);
    if (!j->active[G_DP]) /* the step must end in a collective every rank joins */
        coll(&s, G_DEF, OP_AR, j->sh_scalar, j->sh_scalar, DT_FLOAT, SK_DEF, TH_MAIN);
    if (s.n > 0) out[s.n - 1].final = 1;
    return s.n;
}

/* --- setup -------------------------------------------------------------------------------- */

static void setup_shapes(job *j) {
    int64_t seqlen = 4096, hidden = (j->seed & 1) ? 8192 : 5120;
    j->sh_hidden = add_shape(j, 3, seqlen, 1, hidden);
    j->sh_hidden_part = add_shape(j, 3, seqlen / j->tp, 1, hidden);
    j->sh_tokens = add_shape(j, 2, 1, seqlen, 0);
    j->sh_scalar = add_shape(j, 1, 1, 0, 0);
    j->sh_a2a = add_shape(j, 2, seqlen * 2 / j->tp, hidden, 0);
    int64_t bucket = 40000000 + (int64_t)(mix(j->seed) % 1000) * 1024;
    j->sh_bucket[0] = add_shape(j, 1, bucket, 0, 0);
    j->sh_bucket[1] = add_shape(j, 1, bucket + 50257 * hidden / j->tp, 0, 0);
}

static void setup_groups(job *j) {
    int total = 0;
    for (int g = 0; g < G_N; g++) {
        const int count[G_N] = { 1, j->tp * j->pp, j->n / j->tp, j->tp * j->dp, j->n / j->ep };
        j->ngroups[g] = count[g];
        j->name_base[g] = total;
        total += count[g];
        j->active[g] = g == G_DEF ? j->period > 0 || j->dp < 2 : group_size(j, g) > 1;
    }
    j->names = xmalloc(sizeof(char *) * (size_t)total);
    j->ranks_str = xmalloc(sizeof(char *) * (size_t)total);
    for (int g = 0; g < G_N; g++) {
        for (int i = 0; i < j->ngroups[g]; i++) {
            char buf[16];
            snprintf(buf, sizeof buf, "%d", j->name_base[g] + i);
            j->names[j->name_base[g] + i] = xstrdup(buf);
            j->ranks_str[j->name_base[g] + i] = j->active[g] ? ranks_string(j, g, i) : NULL;
        }
    }
    j->p2p_names = xmalloc(sizeof(char *) * (size_t)j->pp * 4);
    for (int st = 0; st < j->pp; st++) {
        char buf[64];
        snprintf(buf, sizeof buf, "nccl:send %d->%d", st, st + 1);
        j->p2p_names[st * 4 + 0] = xstrdup(buf);
        snprintf(buf, sizeof buf, "nccl:send %d->%d", st, st - 1);
        j->p2p_names[st * 4 + 1] = xstrdup(buf);
        snprintf(buf, sizeof buf, "nccl:recv %d<-%d", st, st - 1);
        j->p2p_names[st * 4 + 2] = xstrdup(buf);
        snprintf(buf, sizeof buf, "nccl:recv %d<-%d", st, st + 1);
        j->p2p_names[st * 4 + 3] = xstrdup(buf);
    }
}

/* Which groups hold a slow rank (--slow-ranks): their collectives end when it arrives. */
static void setup_slow_groups(job *j) {
    for (int g = 0; g < G_N; g++) {
        j->slow_in[g] = xmalloc(sizeof(bool) * (size_t)j->ngroups[g]);
        for (int i = 0; i < j->ngroups[g]; i++) {
            j->slow_in[g][i] = false;
            for (int k = 0; j->active[g] && k < group_size(j, g) && !j->slow_in[g][i]; k++)
                j->slow_in[g][i] = j->slow[member_of(j, g, i, k)];
        }
    }
}

/* The steps after which the program repeats itself. */
static int64_t period_of(const job *j) { return j->period > 0 ? j->period : 1; }

/* Per stage: the counters after hist_steps, from one period times hist_steps / period; and
 * the step sizes that fix the window. */
static void setup_history(job *j) {
    int min_ops = 1 << 30;
    op *scratch = xmalloc(sizeof(op) * 65536);
    j->max_step_ops = 0;
    for (int st = 0; st < j->pp; st++) {
        counters c = { { 0 }, { 0 }, 0 };
        rankpos p = pos_of(j, st * j->tp * j->dp);
        for (int64_t step = 0; step < period_of(j); step++) {
            int n = gen_step(j, p, &c, step, scratch);
            if (n > j->max_step_ops) j->max_step_ops = n;
            if (n < min_ops) min_ops = n;
        }
        int64_t times = j->hist_steps / period_of(j);
        for (int g = 0; g < G_N; g++) {
            c.coll[g] *= times;
            c.p2p[g] *= times;
        }
        c.rid *= times;
        j->hist[st] = c;
    }
    free(scratch);
    if (min_ops < 1) min_ops = 1;
    j->slot_ns = STEP_NS / (j->max_step_ops + 1); /* keeps time_created_ns increasing */
    j->window_steps = (j->entries + min_ops - 1) / min_ops + 1;
}

/* --- the hang step, simulated for the whole world --------------------------------------- */

typedef struct slot {
    uint64_t key;
    uint32_t need, arrived;
    uint8_t final, used;
} slot;

typedef struct table {
    slot *s;
    size_t cap;
} table;

static slot *table_get(table *t, uint64_t key) {
    size_t i = (size_t)mix(key) & (t->cap - 1);
    while (t->s[i].used && t->s[i].key != key) i = (i + 1) & (t->cap - 1);
    return &t->s[i];
}

/* A key that every participant of the operation computes alike: the group and the
 * collective's index in the step, or the pipeline link, direction and micro-batch of a p2p. */
static uint64_t op_key(const job *j, rankpos p, const op *o, const int64_t *local_seq) {
    uint64_t gid = (uint64_t)(j->name_base[o->g] + group_index(j, p, o->g));
    if (o->kind == OP_SEND || o->kind == OP_RECV) {
        uint64_t link = (uint64_t)(p.pp < o->peer ? p.pp : o->peer);
        return 1ull << 63 | gid << 32 | (uint64_t)o->phase << 31 | (uint64_t)o->mb << 12 | link;
    }
    return gid << 32 | (uint64_t)local_seq[o->g];
}

typedef struct sim {
    table t;
    uint64_t *keys; /* keys of rank r's step at keys[off[r]] */
    size_t *off;
    uint16_t *nops, *stop, *arrived_at; /* arrived_at: head index + 1 that has arrived */
} sim;

static void sim_collect(const job *j, sim *m, int64_t step) {
    op *buf = xmalloc(sizeof(op) * (size_t)j->max_step_ops);
    size_t total = 0;
    for (int r = 0; r < j->n; r++) {
        counters c = { { 0 }, { 0 }, 0 };
        int n = gen_step(j, pos_of(j, r), &c, step, buf);
        m->off[r] = total;
        m->nops[r] = (uint16_t)n;
        total += (size_t)n;
    }
    m->keys = xmalloc(sizeof(uint64_t) * total);
    m->t.cap = 1;
    while (m->t.cap < total * 2) m->t.cap <<= 1;
    m->t.s = xmalloc(sizeof(slot) * m->t.cap);
    for (int r = 0; r < j->n; r++) {
        counters c = { { 0 }, { 0 }, 0 };
        rankpos p = pos_of(j, r);
        int n = gen_step(j, p, &c, step, buf);
        int64_t local[G_N] = { 0 };
        for (int i = 0; i < n; i++) {
            if (buf[i].kind != OP_SEND && buf[i].kind != OP_RECV) local[buf[i].g]++;
            uint64_t key = op_key(j, p, &buf[i], local);
            m->keys[m->off[r] + (size_t)i] = key;
            slot *sl = table_get(&m->t, key);
            if (!sl->used) {
                sl->used = 1;
                sl->key = key;
                sl->need = buf[i].kind == OP_SEND || buf[i].kind == OP_RECV
                               ? 2
                               : (uint32_t)group_size(j, buf[i].g);
            }
            sl->final |= buf[i].final;
        }
    }
    free(buf);
}

/* One round: issue, arrive, complete. Returns whether anything changed. */
static bool sim_round(const job *j, sim *m, uint8_t *advance) {
    bool changed = false;
    for (int r = 0; r < j->n; r++) {
        int lim = j->done[r] + LOOKAHEAD;
        if (lim > m->stop[r]) lim = m->stop[r];
        if (j->issued[r] < lim) {
            j->issued[r] = (uint16_t)lim;
            changed = true;
        }
        if (j->done[r] < j->issued[r] && m->arrived_at[r] != j->done[r] + 1) {
            table_get(&m->t, m->keys[m->off[r] + j->done[r]])->arrived++;
            m->arrived_at[r] = (uint16_t)(j->done[r] + 1);
            changed = true;
        }
    }
    for (int r = 0; r < j->n; r++) {
        advance[r] = 0;
        if (m->arrived_at[r] != j->done[r] + 1) continue;
        slot *sl = table_get(&m->t, m->keys[m->off[r] + j->done[r]]);
        advance[r] = sl->arrived == sl->need && !sl->final;
    }
    for (int r = 0; r < j->n; r++)
        if (advance[r]) {
            j->done[r]++;
            changed = true;
        }
    return changed;
}

/* Where a culprit stops: a random TP collective of its hang step after the first operation
 * (any collective when there is no TP group); it issues everything before it. */
static int pick_stop(const job *j, int r, uint64_t rnd, int64_t step) {
    op *buf = xmalloc(sizeof(op) * (size_t)j->max_step_ops);
    int *cand = xmalloc(sizeof(int) * (size_t)j->max_step_ops);
    counters c = { { 0 }, { 0 }, 0 };
    int n = gen_step(j, pos_of(j, r), &c, step, buf), ncand = 0;
    for (int i = 1; i < n - 1; i++) {
        bool is_p2p = buf[i].kind == OP_SEND || buf[i].kind == OP_RECV;
        if (j->active[G_TP] ? buf[i].g == G_TP : !is_p2p) cand[ncand++] = i;
    }
    int stop = ncand ? cand[rnd % (uint64_t)ncand] : n - 1;
    free(buf);
    free(cand);
    return stop;
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Culprits in distinct independent units (blocks of expert-parallel data replicas). */
static void choose_culprits(job *j, sim *m, int64_t step) {
    int units = j->dp / j->ep;
    int *perm = xmalloc(sizeof(int) * (size_t)units);
    for (int u = 0; u < units; u++) perm[u] = u;
    for (int u = units - 1; u > 0; u--) {
        int v = (int)(mix(j->seed * 31 + (uint64_t)u) % (uint64_t)(u + 1)), t = perm[u];
        perm[u] = perm[v];
        perm[v] = t;
    }
    for (int k = 0; k < j->faults; k++) {
        uint64_t rnd = mix(j->seed ^ (0xfa17ull + (uint64_t)k));
        int dp = perm[k] * j->ep + (int)(rnd % (uint64_t)j->ep);
        int tp = (int)((rnd >> 16) % (uint64_t)j->tp), pp = (int)((rnd >> 32) % (uint64_t)j->pp);
        int r = tp + j->tp * (dp + j->dp * pp);
        j->culprits[k] = r;
        m->stop[r] = (uint16_t)pick_stop(j, r, rnd >> 40, step);
    }
    qsort(j->culprits, (size_t)j->faults, sizeof(int), cmp_int);
    free(perm);
}

static void simulate_hang(job *j) {
    int64_t step = j->hist_steps + j->window_steps;
    sim m;
    memset(&m, 0, sizeof m);
    m.off = xmalloc(sizeof(size_t) * (size_t)j->n);
    m.nops = xmalloc(sizeof(uint16_t) * (size_t)j->n);
    m.stop = xmalloc(sizeof(uint16_t) * (size_t)j->n);
    m.arrived_at = xmalloc(sizeof(uint16_t) * (size_t)j->n);
    uint8_t *advance = xmalloc((size_t)j->n);
    j->issued = xmalloc(sizeof(uint16_t) * (size_t)j->n);
    j->done = xmalloc(sizeof(uint16_t) * (size_t)j->n);
    sim_collect(j, &m, step);
    memcpy(m.stop, m.nops, sizeof(uint16_t) * (size_t)j->n);
    choose_culprits(j, &m, step);
    while (sim_round(j, &m, advance)) {}
    for (int k = 0; k < j->faults; k++) {
        int r = j->culprits[k];
        if (j->done[r] != j->issued[r])
            fprintf(stderr, "gen_dumps: warning: culprit %d is itself waiting\n", r);
    }
    free(m.keys);
    free(m.t.s);
    free(m.off);
    free(m.nops);
    free(m.stop);
    free(m.arrived_at);
    free(advance);
}

/* --- time: operations that wait for the previous one (--cascade), and clocks ---------------- */

/* A key that every participant of a window operation computes alike (op_key's, with the step). */
static uint64_t window_key(const job *j, rankpos p, const op *o, int64_t step) {
    uint64_t gid = (uint64_t)(j->name_base[o->g] + group_index(j, p, o->g));
    if (o->kind == OP_SEND || o->kind == OP_RECV) {
        uint64_t link = (uint64_t)(p.pp < o->peer ? p.pp : o->peer);
        return 1ull << 63 | gid << 40 | (uint64_t)(step - j->hist_steps) << 24 |
               (uint64_t)o->mb << 8 | (uint64_t)o->phase << 7 | link;
    }
    return gid << 40 | (uint64_t)o->coll_seq;
}

typedef struct tslot {
    uint64_t key;
    uint32_t need, arrived;
    int64_t last, done; /* the latest arrival so far; the completion once all arrived */
} tslot;

static tslot *tslot_get(tslot *t, size_t cap, uint64_t key) {
    size_t i = (size_t)mix(key) & (cap - 1);
    while (t[i].need && t[i].key != key) i = (i + 1) & (cap - 1);
    return &t[i];
}

/* Every rank's operations over the window and what it issued of the hang step: their keys,
 * planned arrivals (slot plus jitter, without --slow-ms) and whether they stay pending, in
 * j->c_at order. Returns the table of operations, its capacity in *cap. */
static tslot *cascade_collect(job *j, uint64_t **keys, int64_t **plan, uint8_t **pend,
                              size_t *cap) {
    op *buf = xmalloc(sizeof(op) * (size_t)j->max_step_ops);
    j->c_at = xmalloc(sizeof(size_t) * ((size_t)j->n + 1));
    size_t total = 0;
    for (int r = 0; r < j->n; r++) {
        counters c = j->hist[pos_of(j, r).pp];
        j->c_at[r] = total;
        for (int64_t s = 0; s < j->window_steps; s++)
            total += (size_t)gen_step(j, pos_of(j, r), &c, j->hist_steps + s, buf);
        total += j->issued[r];
    }
    j->c_at[j->n] = total;
    *keys = xmalloc(sizeof(uint64_t) * (total + 1));
    *plan = xmalloc(sizeof(int64_t) * (total + 1));
    *pend = xmalloc(total + 1);
    for (*cap = 1; *cap < total * 2; *cap <<= 1) {}
    tslot *t = xmalloc(sizeof(tslot) * *cap);
    for (int r = 0; r < j->n; r++) {
        rankpos p = pos_of(j, r);
        counters c = j->hist[p.pp];
        size_t at = j->c_at[r];
        for (int64_t s = 0; s <= j->window_steps; s++) {
            int k = gen_step(j, p, &c, j->hist_steps + s, buf);
            if (s == j->window_steps) k = j->issued[r];
            for (int i = 0; i < k; i++, at++) {
                const op *o = &buf[i];
                (*keys)[at] = window_key(j, p, o, j->hist_steps + s);
                (*plan)[at] = o->time_ns - (j->slow[r] ? j->slow_ns : 0);
                (*pend)[at] = s == j->window_steps && i >= j->done[r];
                tslot *sl = tslot_get(t, *cap, (*keys)[at]);
                sl->key = (*keys)[at];
                sl->need =
                    o->kind == OP_SEND || o->kind == OP_RECV ? 2 : (uint32_t)group_size(j, o->g);
            }
        }
    }
    free(buf);
    return t;
}

/* --cascade: a rank arrives at an operation at its planned time or, when its previous operation
 * completed later, that completion plus a short gap (1 ms and its jitter): it waited, and what it
 * waited for delays it. A slow rank then arrives --slow-ms later still. An operation completes
 * STEP_NS/1024 after its last member arrived; one that the hang leaves pending holds nobody (the
 * rank goes on to what it issued after it). Simulated rank after rank, each as far as its
 * operations have completed, until every rank is through. */
static void simulate_cascade(job *j) {
    uint64_t *keys;
    int64_t *plan;
    uint8_t *pend;
    size_t cap;
    tslot *t = cascade_collect(j, &keys, &plan, &pend, &cap);
    size_t total = j->c_at[j->n];
    j->c_arrive = xmalloc(sizeof(int64_t) * (total + 1));
    j->c_done = xmalloc(sizeof(int64_t) * (total + 1));
    size_t *next = xmalloc(sizeof(size_t) * (size_t)j->n);
    int64_t *free_at = xmalloc(sizeof(int64_t) * (size_t)j->n); /* previous completion + gap */
    for (int r = 0; r < j->n; r++) next[r] = j->c_at[r], free_at[r] = INT64_MIN;
    for (size_t i = 0; i < total; i++) j->c_arrive[i] = INT64_MIN;
    int64_t jitter = j->jitter_ns < j->slot_ns / 2 ? j->jitter_ns : j->slot_ns / 2;
    bool moved = true;
    while (moved) {
        moved = false;
        for (int r = 0; r < j->n; r++) {
            for (size_t i = next[r]; i < j->c_at[r + 1]; i = ++next[r]) {
                tslot *sl = tslot_get(t, cap, keys[i]);
                if (j->c_arrive[i] == INT64_MIN) {
                    int64_t a = plan[i] > free_at[r] ? plan[i] : free_at[r];
                    j->c_arrive[i] = a + (j->slow[r] ? j->slow_ns : 0);
                    if (++sl->arrived == 1 || j->c_arrive[i] > sl->last) sl->last = j->c_arrive[i];
                    if (sl->arrived == sl->need) sl->done = sl->last + STEP_NS / 1024;
                    moved = true;
                }
                if (pend[i]) continue;             /* never completes: holds nobody */
                if (sl->arrived < sl->need) break; /* waits for the others */
                j->c_done[i] = sl->done;
                uint64_t draw = mix(j->seed ^ 0xca5cade ^ (uint64_t)i * 0x9e3779b97f4a7c15ull);
                free_at[r] =
                    sl->done + 1000000 + (jitter > 0 ? (int64_t)(draw % (uint64_t)jitter) : 0);
                moved = true;
            }
        }
    }
    for (int r = 0; r < j->n; r++)
        if (next[r] != j->c_at[r + 1]) {
            fprintf(stderr, "gen_dumps: --cascade: rank %d cannot finish its window\n", r);
            exit(2);
        }
    free(keys), free(plan), free(pend), free(t), free(next), free(free_at);
}

/* A rank's operations (ops[0..n), in gen_step order from the window's first step to what it
 * issued of the hang step) take their simulated times. */
static void cascade_times(const job *j, int r, op *ops, size_t n) {
    size_t at = j->c_at[r];
    for (size_t i = 0; i < n && i < j->c_at[r + 1] - at; i++) {
        ops[i].time_ns = j->c_arrive[at + i];
        ops[i].done_ns = j->c_done[at + i];
    }
}

/* How far rank r's clock reads ahead at true time t: its node's offset (--node-offset-ms: a node
 * is a tensor-parallel group, drawn in [-O, O]) plus its pipeline stage's drift (--clock-drift-ms:
 * the last stage gains D over the window, linearly from its start, the first stage nothing). */
static int64_t clock_offset(const job *j, rankpos p, int64_t t) {
    int64_t off = 0;
    if (j->node_off_ns > 0) {
        uint64_t draw = mix(j->seed ^ 0x0ff5e7ull ^ (uint64_t)(p.r / j->tp) << 20);
        off += (int64_t)(draw % (uint64_t)(2 * j->node_off_ns + 1)) - j->node_off_ns;
    }
    if (j->drift_ns > 0 && j->pp > 1) {
        int64_t start = j->t0 + j->hist_steps * STEP_NS, span = (j->window_steps + 1) * STEP_NS;
        double f = (double)(t - start) / (double)span;
        f = f < 0 ? 0 : f > 1 ? 1 : f;
        off += (int64_t)((double)j->drift_ns * f * p.pp / (j->pp - 1));
    }
    return off;
}

/* --- writing one rank's dump ------------------------------------------------------------ */

/* Every string the generator writes lives at a fixed address, so the memo id the writer gave
 * a string can be remembered by address and reused with pw_get: the same BINGET the writer
 * would emit, without hashing and comparing the string again (pw_str is the writer's most
 * expensive call). A string whose first pw_str was itself a BINGET (the same text at another
 * address) is not cached and keeps going through pw_str. Cleared for every file. */
enum { CACHE_SLOTS = 512 };

typedef struct strcache {
    const char *ptr[CACHE_SLOTS];
    int64_t id[CACHE_SLOTS]; /* -1: not cacheable */
} strcache;

static void put_str(pw_writer *pw, strcache *c, const char *s) {
    size_t i = (size_t)(((uintptr_t)s >> 3) * 0x9e3779b1u) & (CACHE_SLOTS - 1);
    for (size_t probes = 0; probes < CACHE_SLOTS; probes++, i = (i + 1) & (CACHE_SLOTS - 1)) {
        if (c->ptr[i] == s) {
            if (c->id[i] >= 0)
                pw_get(pw, (uint32_t)c->id[i]);
            else
                pw_cstr(pw, s);
            return;
        }
        if (!c->ptr[i]) {
            uint32_t before = pw->next_memo_id;
            pw_cstr(pw, s);
            c->ptr[i] = s;
            c->id[i] = pw->next_memo_id == before + 1 ? (int64_t)before : -1;
            return;
        }
    }
    pw_cstr(pw, s); /* cache full */
}

typedef struct worker {
    job *j;
    int id;
    op *ops;
    size_t ops_cap;
    uint8_t *buf;
    pw_memo_slot *memo;
    int64_t frame_refs[NFRAMES];
    int64_t frame_memo[NFRAMES];
    char thread_ids[2][24];
    char pg_keys[G_N][8];
    uint64_t bytes, nentries;
    strcache cache;
} worker;

typedef struct fdsink {
    int fd;
    uint64_t bytes;
    uint8_t *mem; /* --json: the pickle is collected here first */
    size_t mem_len, mem_cap;
} fdsink;

static int fd_write(fdsink *s, const uint8_t *bytes, size_t len) {
    while (len > 0) {
        ssize_t n = write(s->fd, bytes, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        bytes += n;
        len -= (size_t)n;
        s->bytes += (uint64_t)n;
    }
    return 0;
}

static int sink_write(void *ctx, const uint8_t *bytes, size_t len) {
    fdsink *s = ctx;
    if (s->mem_cap == 0) return fd_write(s, bytes, len);
    if (len > s->mem_cap - s->mem_len) {
        size_t cap = s->mem_cap;
        while (len > cap - s->mem_len) cap *= 2;
        uint8_t *grown = realloc(s->mem, cap);
        if (!grown) return -1;
        s->mem = grown;
        s->mem_cap = cap;
    }
    memcpy(s->mem + s->mem_len, bytes, len);
    s->mem_len += len;
    return 0;
}

static int json_sink(void *ctx, const uint8_t *bytes, size_t len) {
    return fd_write(ctx, bytes, len);
}

/* --json: the collected pickle, decoded and written to the file in PyTorch's JSON layout. */
static int write_json(fdsink *sink, const char *path) {
    fr_dump *d;
    fr_error err;
    int rc = fr_dump_decode(sink->mem, sink->mem_len, &d, &err);
    if (rc == 0) rc = fr_dump_write_json(d, NULL, json_sink, sink, &err);
    if (rc != 0) fprintf(stderr, "gen_dumps: %s: %s\n", path, err.msg);
    if (rc == 0) fr_dump_free(d);
    free(sink->mem);
    return rc;
}

/* Fills w->ops with the rank's last `entries` operations; returns how many. */
static size_t rank_ops(worker *w, rankpos p) {
    const job *j = w->j;
    counters c = j->hist[p.pp];
    size_t n = 0;
    for (int64_t s = 0; s <= j->window_steps; s++) {
        int64_t step = j->hist_steps + s;
        int k = gen_step(j, p, &c, step, w->ops + n);
        if (s == j->window_steps) {
            for (int i = 0; i < k; i++)
                w->ops[n + (size_t)i].state = i < j->done[p.r] ? ST_DONE : ST_SCHED;
            k = j->issued[p.r];
            if (j->cascade) cascade_times(j, p.r, w->ops, n + (size_t)k);
        }
        n += (size_t)k;
    }
    for (size_t i = 0; i < n && (j->node_off_ns || j->drift_ns); i++) {
        w->ops[i].done_ns += clock_offset(j, p, w->ops[i].done_ns);
        w->ops[i].time_ns += clock_offset(j, p, w->ops[i].time_ns);
    }
    size_t keep = n < (size_t)j->entries ? n : (size_t)j->entries;
    memmove(w->ops, w->ops + (n - keep), keep * sizeof(op));
    return keep;
}

static void count_frames(worker *w, size_t n) {
    int64_t per_stack[NSTACKS] = { 0 };
    for (size_t i = 0; i < n; i++) per_stack[w->ops[i].stack]++;
    memset(w->frame_refs, 0, sizeof w->frame_refs);
    for (int s = 0; s < NSTACKS; s++)
        for (int k = 0; STACKS[s][k] >= 0; k++) w->frame_refs[STACKS[s][k]] += per_stack[s];
    for (int f = 0; f < NFRAMES; f++) w->frame_memo[f] = -1;
}

static void write_frame(pw_writer *pw, worker *w, int f) {
    if (w->frame_memo[f] >= 0) {
        pw_get(pw, (uint32_t)w->frame_memo[f]);
        return;
    }
    pw_dict_begin(pw);
    put_str(pw, &w->cache, "name");
    put_str(pw, &w->cache, FRAMES[f].name);
    put_str(pw, &w->cache, "filename");
    put_str(pw, &w->cache, FRAMES[f].file);
    put_str(pw, &w->cache, "line");
    pw_int(pw, FRAMES[f].line);
    pw_dict_end(pw);
    if (w->frame_refs[f] >= 2) w->frame_memo[f] = pw_put(pw);
}

static void write_sizes(pw_writer *pw, const job *j, int sh) {
    const shape *s = &j->shapes[sh];
    pw_list_begin(pw);
    pw_list_begin(pw);
    for (int d = 0; d < s->ndim; d++) pw_int(pw, s->d[d]);
    pw_list_end(pw);
    pw_list_end(pw);
}

static void write_dtypes(pw_writer *pw, worker *w, int dt) {
    pw_list_begin(pw);
    put_str(pw, &w->cache, DTYPE[dt]);
    pw_list_end(pw);
}

static const char *profiling_name(const job *j, rankpos p, const op *o) {
    if (o->kind == OP_SEND) return j->p2p_names[p.pp * 4 + (o->peer > p.pp ? 0 : 1)];
    if (o->kind == OP_RECV) return j->p2p_names[p.pp * 4 + (o->peer < p.pp ? 2 : 3)];
    return OPNAME[o->kind];
}

static void write_entry(pw_writer *pw, worker *w, rankpos p, const op *o) {
    const job *j = w->j;
    bool is_p2p = o->kind == OP_SEND || o->kind == OP_RECV;
    pw_dict_begin(pw);
    if (j->frames) {
        put_str(pw, &w->cache, "frames");
        pw_list_begin(pw);
        for (int k = 0; STACKS[o->stack][k] >= 0; k++) write_frame(pw, w, STACKS[o->stack][k]);
        pw_list_end(pw);
    }
    put_str(pw, &w->cache, "record_id");
    pw_int(pw, o->record_id);
    put_str(pw, &w->cache, "pg_id");
    pw_int(pw, pg_id_of(j, o->g));
    put_str(pw, &w->cache, "process_group");
    put_str(pw, &w->cache, j->names[j->name_base[o->g] + group_index(j, p, o->g)]);
    put_str(pw, &w->cache, DESC[o->g]);
    pw_tuple2(pw);
    put_str(pw, &w->cache, "thread_name");
    put_str(pw, &w->cache, THREAD_NAME[o->thread]);
    put_str(pw, &w->cache, "thread_id");
    put_str(pw, &w->cache, w->thread_ids[o->thread]);
    put_str(pw, &w->cache, "collective_seq_id");
    pw_int(pw, o->coll_seq);
    put_str(pw, &w->cache, "p2p_seq_id");
    pw_int(pw, o->p2p_seq);
    put_str(pw, &w->cache, "op_id");
    pw_int(pw, o->op_id);
    put_str(pw, &w->cache, "profiling_name");
    put_str(pw, &w->cache, profiling_name(j, p, o));
    put_str(pw, &w->cache, "time_created_ns");
    pw_int(pw, o->time_ns);
    if (j->durations &&
        o->state == ST_DONE) { /* torch writes it only once the end event was read */
        put_str(pw, &w->cache, "duration_ms");
        double ms =
            1.0 +
            (double)(mix(j->seed ^ (uint64_t)o->record_id ^ (uint64_t)p.r << 40) % 200) / 1000.0;
        pw_float(pw, j->slow_gpu[p.r] ? ms * j->gpu_factor : ms);
    }
    put_str(pw, &w->cache, "input_sizes");
    write_sizes(pw, j, o->sh_in);
    put_str(pw, &w->cache, "input_dtypes");
    write_dtypes(pw, w, o->dt_in);
    put_str(pw, &w->cache, "output_sizes");
    write_sizes(pw, j, o->sh_out);
    put_str(pw, &w->cache, "output_dtypes");
    write_dtypes(pw, w, o->dt_out);
    put_str(pw, &w->cache, "state");
    put_str(pw, &w->cache, STATE[o->state]);
    put_str(pw, &w->cache, "time_discovered_started_ns");
    pw_none(pw);
    put_str(pw, &w->cache, "time_discovered_completed_ns");
    if (o->state == ST_DONE)
        pw_int(pw, o->done_ns);
    else
        pw_none(pw);
    put_str(pw, &w->cache, "retired");
    pw_bool(pw, o->state == ST_DONE);
    put_str(pw, &w->cache, "timeout_ms");
    pw_int(pw, 600000);
    put_str(pw, &w->cache, "is_p2p");
    pw_bool(pw, is_p2p);
    pw_dict_end(pw);
}

typedef struct order {
    const char *name;
    int g;
} order;

static int cmp_order(const void *a, const void *b) {
    return strcmp(((const order *)a)->name, ((const order *)b)->name);
}

/* pg_config: the rank's groups in std::map order, i.e. by name as a string. */
static void write_pg_config(pw_writer *pw, worker *w, rankpos p) {
    const job *j = w->j;
    order o[G_N];
    int n = 0;
    for (int g = 0; g < G_N; g++)
        if (j->active[g]) {
            o[n].name = j->names[j->name_base[g] + group_index(j, p, g)];
            o[n++].g = g;
        }
    qsort(o, (size_t)n, sizeof o[0], cmp_order);
    put_str(pw, &w->cache, "pg_config");
    pw_dict_begin(pw);
    for (int i = 0; i < n; i++) {
        put_str(pw, &w->cache, o[i].name);
        pw_dict_begin(pw);
        put_str(pw, &w->cache, "name");
        put_str(pw, &w->cache, o[i].name);
        put_str(pw, &w->cache, "desc");
        put_str(pw, &w->cache, DESC[o[i].g]);
        put_str(pw, &w->cache, "ranks");
        put_str(pw, &w->cache, j->ranks_str[j->name_base[o[i].g] + group_index(j, p, o[i].g)]);
        pw_dict_end(pw);
    }
    pw_dict_end(pw);
}

/* pg_status: per pg_id, the sequence number of the last work enqueued and completed (the
 * collective or p2p counter, whichever the work carried), as the watchdog tracks them. */
static void write_pg_status(pw_writer *pw, worker *w, rankpos p, size_t n) {
    const job *j = w->j;
    int64_t enq[G_N], comp[G_N];
    const counters *h = &j->hist[p.pp];
    for (int g = 0; g < G_N; g++) enq[g] = comp[g] = g == G_PP ? h->p2p[g] : h->coll[g];
    for (size_t i = 0; i < n; i++) {
        const op *o = &w->ops[i];
        int64_t seq = o->kind == OP_SEND || o->kind == OP_RECV ? o->p2p_seq : o->coll_seq;
        enq[o->g] = seq;
        if (o->state == ST_DONE) comp[o->g] = seq;
    }
    put_str(pw, &w->cache, "pg_status");
    pw_dict_begin(pw);
    for (int g = 0; g < G_N; g++) {
        if (!j->active[g]) continue;
        put_str(pw, &w->cache, w->pg_keys[pg_id_of(j, g)]);
        pw_dict_begin(pw);
        put_str(pw, &w->cache, "last_enqueued_collective");
        pw_int(pw, enq[g]);
        put_str(pw, &w->cache, "last_started_collective");
        pw_int(pw, -1);
        put_str(pw, &w->cache, "last_completed_collective");
        pw_int(pw, comp[g]);
        pw_dict_end(pw);
    }
    pw_dict_end(pw);
}

static int write_rank(worker *w, int r) {
    const job *j = w->j;
    rankpos p = pos_of(j, r);
    size_t n = rank_ops(w, p);
    count_frames(w, n);
    for (int t = 0; t < 2; t++)
        snprintf(w->thread_ids[t], sizeof w->thread_ids[t], "%" PRIu64,
                 (uint64_t)(140000000000000ull +
                            mix(j->seed ^ ((uint64_t)r << 1 | (uint64_t)t)) % 999999999999ull));
    char path[4096];
    snprintf(path, sizeof path, "%s/%s%d%s", j->outdir, j->prefix, r, j->json ? ".json" : "");
    fdsink sink = { open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644), 0, NULL, 0, 0 };
    if (j->json && (sink.mem = malloc(OUT_BUF))) sink.mem_cap = OUT_BUF;
    if (sink.fd < 0) {
        fprintf(stderr, "gen_dumps: %s: %s\n", path, strerror(errno));
        return -1;
    }
    pw_writer pw;
    memset(&w->cache, 0, sizeof w->cache);
    pw_init(&pw, w->buf, OUT_BUF, w->memo, MEMO_SLOTS, sink_write, &sink);
    pw_proto(&pw);
    pw_dict_begin(&pw);
    put_str(&pw, &w->cache, "version");
    put_str(&pw, &w->cache, j->version == 9 ? "2.9" : "2.10");
    write_pg_config(&pw, w, p);
    put_str(&pw, &w->cache, j->version == 9 ? "nccl_version" : "comm_lib_version");
    put_str(&pw, &w->cache, "2.27.3");
    write_pg_status(&pw, w, p, n);
    put_str(&pw, &w->cache, "entries");
    pw_list_begin(&pw);
    for (size_t i = 0; i < n; i++) write_entry(&pw, w, p, &w->ops[i]);
    pw_list_end(&pw);
    pw_dict_end(&pw);
    if (j->version == 9) pw_put(&pw); /* `auto result = ...; pickle_str(result)` */
    pw_stop(&pw);
    int rc = pw_finish(&pw, NULL, NULL);
    if (rc == 0 && j->json) rc = sink.mem ? write_json(&sink, path) : -1;
    if (close(sink.fd) != 0 || rc != 0) {
        fprintf(stderr, "gen_dumps: %s: write failed: %s\n", path, strerror(errno));
        return -1;
    }
    w->bytes += sink.bytes;
    w->nentries += n;
    return 0;
}

static void *worker_main(void *arg) {
    worker *w = arg;
    job *j = w->j;
    w->ops_cap = (size_t)(j->window_steps + 1) * (size_t)j->max_step_ops;
    w->ops = xmalloc(sizeof(op) * w->ops_cap);
    w->buf = xmalloc(OUT_BUF);
    w->memo = xmalloc(sizeof(pw_memo_slot) * MEMO_SLOTS);
    for (int g = 0; g < G_N; g++) snprintf(w->pg_keys[g], sizeof w->pg_keys[g], "%d", g);
    int failed = 0;
    for (int64_t r = (int64_t)w->id * j->every; r < j->n && !failed;
         r += (int64_t)j->jobs * j->every)
        failed = write_rank(w, (int)r) != 0;
    pthread_mutex_lock(&j->lock);
    j->bytes += w->bytes;
    j->nentries += w->nentries;
    j->failed |= failed;
    pthread_mutex_unlock(&j->lock);
    free(w->ops);
    free(w->buf);
    free(w->memo);
    return NULL;
}

/* --- command line ------------------------------------------------------------------------ */

static void usage(void) {
    fprintf(
        stderr,
        "usage: gen_dumps --ranks N --entries E [--frames] [--faults K] [--version 2.9|2.10]\n"
        "                 [--seed S] [--json] [--prefix P] [--tp T] [--pp P] [--ep X]\n"
        "                 [--microbatches M] [--layers L] [--jobs J] [--every K] [--jitter-ms J]\n"
        "                 [--slow-ranks R --slow-ms D] [--durations] [--slow-gpu R "
        "--slow-gpu-factor F]\n"
        "                 [--cascade] [--clock-drift-ms D] [--node-offset-ms O] [--period P] "
        "OUTDIR\n");
    exit(2);
}

static long num_arg(int argc, char **argv, int *i) {
    if (*i + 1 >= argc) usage();
    char *end;
    long v = strtol(argv[++*i], &end, 10);
    if (*end || v < 0) usage();
    return v;
}

static int gcd(int a, int b) { return b ? gcd(b, a % b) : a; }

/* "3", "3,9", "8-15": a set of ranks below j->n; all false for NULL. */
static bool *rank_set(const job *j, const char *list) {
    bool *set = calloc((size_t)j->n, sizeof *set);
    if (!set) exit(2);
    for (const char *p = list; p && *p;) {
        char *end;
        long lo = strtol(p, &end, 10), hi = lo;
        if (end == p) usage();
        if (*end == '-') hi = strtol(end + 1, &end, 10);
        if (lo < 0 || hi < lo || hi >= j->n || (*end && *end != ',')) usage();
        for (long r = lo; r <= hi; r++) set[r] = true;
        p = *end ? end + 1 : end;
    }
    return set;
}

static void print_set(const char *what, const job *j, const bool *set) {
    printf("%s:", what);
    for (int r = 0; r < j->n; r++)
        if (set[r]) printf(" %d", r);
    printf("\n");
}

static void parse_args(job *j, int argc, char **argv) {
    int tp = -1, pp = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--ranks"))
            j->n = (int)num_arg(argc, argv, &i);
        else if (!strcmp(a, "--entries"))
            j->entries = (int)num_arg(argc, argv, &i);
        else if (!strcmp(a, "--frames"))
            j->frames = true;
        else if (!strcmp(a, "--json"))
            j->json = true;
        else if (!strcmp(a, "--faults"))
            j->faults = (int)num_arg(argc, argv, &i);
        else if (!strcmp(a, "--seed"))
            j->seed = (uint64_t)num_arg(argc, argv, &i);
        else if (!strcmp(a, "--tp"))
            tp = (int)num_arg(argc, argv, &i);
        else if (!strcmp(a, "--pp"))
            pp = (int)num_arg(argc, argv, &i);
        else if (!strcmp(a, "--ep"))
            j->ep = (int)num_arg(argc, argv, &i);
        else if (!strcmp(a, "--microbatches"))
            j->nmb = (int)num_arg(argc, argv, &i);
        else if (!strcmp(a, "--layers"))
            j->nlayers = (int)num_arg(argc, argv, &i);
        else if (!strcmp(a, "--jobs"))
            j->jobs = (int)num_arg(argc, argv, &i);
        else if (!strcmp(a, "--every"))
            j->every = (int)num_arg(argc, argv, &i);
        else if (!strcmp(a, "--prefix") && i + 1 < argc)
            j->prefix = argv[++i];
        else if (!strcmp(a, "--jitter-ms"))
            j->jitter_ns = num_arg(argc, argv, &i) * 1000000;
        else if (!strcmp(a, "--slow-ms"))
            j->slow_ns = num_arg(argc, argv, &i) * 1000000;
        else if (!strcmp(a, "--slow-gpu-factor"))
            j->gpu_factor = (double)num_arg(argc, argv, &i);
        else if (!strcmp(a, "--durations"))
            j->durations = true;
        else if (!strcmp(a, "--period"))
            j->period = (int)num_arg(argc, argv, &i);
        else if (!strcmp(a, "--cascade"))
            j->cascade = true;
        else if (!strcmp(a, "--clock-drift-ms"))
            j->drift_ns = num_arg(argc, argv, &i) * 1000000;
        else if (!strcmp(a, "--node-offset-ms"))
            j->node_off_ns = num_arg(argc, argv, &i) * 1000000;
        else if (!strcmp(a, "--slow-ranks") && i + 1 < argc)
            j->slow_list = argv[++i];
        else if (!strcmp(a, "--slow-gpu") && i + 1 < argc)
            j->gpu_list = argv[++i], j->durations = true;
        else if (!strcmp(a, "--version") && i + 1 < argc) {
            a = argv[++i];
            if (!strcmp(a, "2.9"))
                j->version = 9;
            else if (!strcmp(a, "2.10"))
                j->version = 10;
            else
                usage();
        } else if (a[0] == '-' || j->outdir)
            usage();
        else
            j->outdir = a;
    }
    if (!j->outdir || j->n < 1 || j->entries < 1 || j->nmb < 1 || j->nlayers < 1 || j->every < 1)
        usage();
    j->slow = rank_set(j, j->slow_list);
    j->slow_gpu = rank_set(j, j->gpu_list);
    if (!j->slow_list) j->slow_ns = 0;
    j->tp = tp > 0 ? tp : gcd(j->n, 8);
    j->pp = pp > 0 ? pp : gcd(j->n / j->tp, 4);
    if (j->n % j->tp || (j->n / j->tp) % j->pp) {
        fprintf(stderr, "gen_dumps: --tp %d --pp %d do not divide %d ranks\n", j->tp, j->pp, j->n);
        exit(2);
    }
    j->dp = j->n / (j->tp * j->pp);
    if (j->ep < 1) j->ep = 1;
    if (j->dp % j->ep || j->pp > 64 || j->jobs < 1) {
        fprintf(stderr, "gen_dumps: --ep %d must divide the data-parallel size %d\n", j->ep, j->dp);
        exit(2);
    }
    if (j->faults > j->dp / j->ep) {
        fprintf(stderr,
                "gen_dumps: at most %d independent faults fit (data-parallel size %d / ep %d)\n",
                j->dp / j->ep, j->dp, j->ep);
        exit(2);
    }
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void run_workers(job *j) {
    pthread_t *th = xmalloc(sizeof(pthread_t) * (size_t)j->jobs);
    worker *w = xmalloc(sizeof(worker) * (size_t)j->jobs);
    for (int t = 0; t < j->jobs; t++) {
        w[t].j = j;
        w[t].id = t;
        if (pthread_create(&th[t], NULL, worker_main, &w[t]) != 0) {
            fprintf(stderr, "gen_dumps: cannot start a thread\n");
            exit(2);
        }
    }
    for (int t = 0; t < j->jobs; t++) pthread_join(th[t], NULL);
    free(th);
    free(w);
}

int main(int argc, char **argv) {
    static job j;
    j.entries = 2000;
    j.version = 9;
    j.prefix = "nccl_trace_rank_";
    j.nmb = 4;
    j.nlayers = 2;
    j.every = 1;
    j.period = 10;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    j.jobs = cpus > 0 ? (int)(cpus < 64 ? cpus : 64) : 1;
    j.jitter_ns = 2000000;
    j.slow_ns = 40000000;
    j.gpu_factor = 8;
    parse_args(&j, argc, argv);
    if (mkdir(j.outdir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "gen_dumps: %s: %s\n", j.outdir, strerror(errno));
        return 2;
    }
    pthread_mutex_init(&j.lock, NULL);
    j.slot_ns = STEP_NS / 4096;
    j.hist_steps = period_of(&j) * (60 + (int64_t)(j.seed % 20));
    j.t0 = 1758600000000000000LL + (int64_t)(mix(j.seed) % 1000000000000ull);
    j.culprits = xmalloc(sizeof(int) * (size_t)(j.faults + 1));
    double t_start = now_s();
    setup_shapes(&j);
    setup_groups(&j);
    setup_slow_groups(&j);
    setup_history(&j);
    simulate_hang(&j);
    if (j.drift_ns >= (j.window_steps + 1) * STEP_NS) {
        fprintf(stderr, "gen_dumps: --clock-drift-ms must stay below the window's %lld ms\n",
                (long long)((j.window_steps + 1) * STEP_NS / 1000000));
        return 2;
    }
    if (j.cascade) simulate_cascade(&j);
    double t_sim = now_s();
    run_workers(&j);
    double t_end = now_s();
    printf("culprit_ranks:");
    for (int k = 0; k < j.faults; k++) printf(" %d", j.culprits[k]);
    printf("\n");
    if (j.slow_list) print_set("slow_ranks", &j, j.slow);
    if (j.gpu_list) print_set("slow_gpus", &j, j.slow_gpu);
    double secs = t_end - t_sim;
    fprintf(stderr,
            "gen_dumps: %d ranks (tp %d pp %d dp %d ep %d) x %d entries%s, v2.%d: %" PRIu64
            " bytes, %" PRIu64 " entries, %.1f bytes/entry; setup+simulation %.2f s, "
            "writing %.2f s = %.1f MB/s\n",
            j.n, j.tp, j.pp, j.dp, j.ep, j.entries, j.frames ? " with frames" : "", j.version,
            j.bytes, j.nentries, j.nentries ? (double)j.bytes / (double)j.nentries : 0.0,
            t_sim - t_start, secs, secs > 0 ? (double)j.bytes / 1e6 / secs : 0.0);
    return j.failed ? 1 : 0;
}
