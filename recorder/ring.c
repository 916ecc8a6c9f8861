/* ring.c — the seqlock ring (see ring.h).
 *
 * Writer: fetch_add the head to get an id; mark the slot odd; store the words (release);
 * publish the status; make `ver` even with release order. Reader: acquire `ver`, copy with
 * acquire loads, re-read `ver`; odd or changed means torn. Slot words are relaxed atomics so that
 * ThreadSanitizer sees no data race.
 *
 * Writers of one slot exclude each other: a writer claims the slot with a compare-and-swap from
 * an even `ver` to the next odd one. Two producers meet on a slot only when the ring wrapped
 * around while the first was still writing: with as many producers mid-write as there are slots,
 * or with one producer descheduled mid-write while the others issued a whole ring of calls (a
 * thread preempted for a few milliseconds under ThreadSanitizer's slowness, or on a loaded
 * machine). Then the second waits (yielding) until the first has released the slot, so that no
 * entry ever mixes the words of two calls under an even version; a writer that never releases
 * (its thread stopped for good) is overridden after REC_CLAIM_PATIENCE yields. The ring keeps at
 * least REC_RING_MIN_SLOTS slots in memory even for a smaller FRTRACE_BUFFER_SIZE (readers still
 * see only the newest `capacity` entries), so that the wait is rare. The hot path takes two
 * locked instructions: the fetch_add of the head and the claim, on a line it writes anyway.
 */
#include "ring.h"

#include <sched.h>
#include <string.h>
#include <sys/mman.h>

int rec_ring_init(rec_ring *ring, uint32_t capacity) {
    uint32_t nslots = capacity < REC_RING_MIN_SLOTS ? REC_RING_MIN_SLOTS : capacity;
    size_t bytes = (size_t)nslots * sizeof(rec_slot);
    void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) return -1;
    ring->slots = mem;
    ring->capacity = capacity;
    ring->nslots = nslots;
    atomic_init(&ring->head, 0);
    rec_ring_reset(ring);
    return 0;
}

void rec_ring_reset(rec_ring *ring) {
    for (uint32_t i = 0; i < ring->nslots; i++) {
        rec_slot *s = &ring->slots[i];
        atomic_store_explicit(&s->ver, 0, memory_order_relaxed);
        /* An id that no push ever produces for this slot marks it empty. */
        atomic_store_explicit(&s->status, REC_STATUS(UINT64_MAX >> 8, 0), memory_order_relaxed);
    }
    atomic_store_explicit(&ring->head, 0, memory_order_release);
}

/* Yields a writer waits for another to release its slot before taking it anyway. */
#define REC_CLAIM_PATIENCE 100000

/* Returns the odd version now held; the caller releases with ver = that + 1. The word stores
 * that follow are release stores, so none becomes visible before the odd version (on x86 and
 * ARMv8 they cost what plain stores cost; no fence, which ThreadSanitizer does not model). */
static uint64_t claim_slot(rec_slot *s) {
    uint64_t v = atomic_load_explicit(&s->ver, memory_order_relaxed);
    for (unsigned waited = 0;;) {
        if (!(v & 1)) {
            if (atomic_compare_exchange_weak_explicit(&s->ver, &v, v + 1, memory_order_relaxed,
                                                      memory_order_relaxed))
                return v + 1;
            continue; /* v holds what is there now */
        }
        if (++waited > REC_CLAIM_PATIENCE) { /* the other writer is gone: as before the claim */
            atomic_store_explicit(&s->ver, v + 2, memory_order_relaxed);
            return v + 2;
        }
        sched_yield();
        v = atomic_load_explicit(&s->ver, memory_order_relaxed);
    }
}

uint64_t rec_ring_reserve(rec_ring *ring) {
    return atomic_fetch_add_explicit(&ring->head, 1, memory_order_relaxed);
}

void rec_ring_publish(rec_ring *ring, const rec_call_words *cw, uint64_t status_bits) {
    uint64_t id = cw->call.record_id;
    rec_slot *s = rec_ring_slot(ring, id);
    const uint64_t *words = cw->words;
    uint64_t held = claim_slot(s);
    for (size_t i = 0; i < REC_CALL_WORDS; i++)
        atomic_store_explicit(&s->words[i], words[i], memory_order_release);
    atomic_store_explicit(&s->time_started_ns, 0, memory_order_release);
    atomic_store_explicit(&s->time_completed_ns, 0, memory_order_release);
    atomic_store_explicit(&s->duration_bits, REC_NO_DURATION, memory_order_release);
    atomic_store_explicit(&s->status, REC_STATUS(id, REC_SCHEDULED | status_bits),
                          memory_order_release);
    atomic_store_explicit(&s->ver, held + 1, memory_order_release); /* we own it: no RMW */
}

bool rec_ring_read(const rec_ring *ring, uint64_t id, rec_snapshot *out) {
    uint64_t first, end;
    rec_ring_window(ring, &first, &end);
    if (id < first || id >= end)
        return false; /* older than the newest `capacity` entries, or not written yet */
    rec_slot *s = rec_ring_slot(ring, id);
    uint64_t words[REC_CALL_WORDS];
    uint64_t v1 = atomic_load_explicit(&s->ver, memory_order_acquire);
    if (v1 & 1) return false;
    /* Acquire loads: the second look at `ver` cannot move above any of them. */
    for (size_t i = 0; i < REC_CALL_WORDS; i++)
        words[i] = atomic_load_explicit(&s->words[i], memory_order_acquire);
    out->status = atomic_load_explicit(&s->status, memory_order_acquire);
    out->time_started_ns = atomic_load_explicit(&s->time_started_ns, memory_order_acquire);
    out->time_completed_ns = atomic_load_explicit(&s->time_completed_ns, memory_order_acquire);
    uint32_t bits = atomic_load_explicit(&s->duration_bits, memory_order_acquire);
    out->has_duration = bits != REC_NO_DURATION;
    memcpy(&out->duration_ms, &bits, sizeof bits);
    if (atomic_load_explicit(&s->ver, memory_order_relaxed) != v1) return false;
    memcpy(&out->call, words, sizeof out->call);
    return out->call.record_id == id && REC_STATUS_ID(out->status) == id;
}

void rec_ring_set_bits(rec_ring *ring, uint64_t id, uint64_t bits) {
    rec_slot *s = rec_ring_slot(ring, id);
    uint64_t st = atomic_load_explicit(&s->status, memory_order_relaxed);
    while (REC_STATUS_ID(st) == id &&
           !atomic_compare_exchange_weak_explicit(&s->status, &st, st | bits, memory_order_release,
                                                  memory_order_relaxed)) {}
}

bool rec_ring_advance(rec_ring *ring, uint64_t id, unsigned new_state, int64_t now_ns) {
    rec_slot *s = rec_ring_slot(ring, id);
    uint64_t st = atomic_load_explicit(&s->status, memory_order_relaxed);
    for (;;) {
        if (REC_STATUS_ID(st) != id || REC_STATUS_STATE(st) >= new_state) return false;
        uint64_t next = (st & ~(uint64_t)0xf) | new_state;
        if (atomic_compare_exchange_weak_explicit(&s->status, &st, next, memory_order_release,
                                                  memory_order_relaxed))
            break;
    }
    /* Like PyTorch, a start time exists only when a start event was seen (FRTRACE_GPU_EVENTS=2). */
    if (new_state == REC_STARTED)
        atomic_store_explicit(&s->time_started_ns, now_ns, memory_order_relaxed);
    if (new_state == REC_COMPLETED)
        atomic_store_explicit(&s->time_completed_ns, now_ns, memory_order_relaxed);
    return true;
}

void rec_ring_set_duration(rec_ring *ring, uint64_t id, float ms) {
    rec_slot *s = rec_ring_slot(ring, id);
    uint32_t bits;
    memcpy(&bits, &ms, sizeof bits);
    if (REC_STATUS_ID(atomic_load_explicit(&s->status, memory_order_relaxed)) == id &&
        bits != REC_NO_DURATION)
        atomic_store_explicit(&s->duration_bits, bits, memory_order_release);
}

void rec_ring_window(const rec_ring *ring, uint64_t *first, uint64_t *end) {
    uint64_t head = atomic_load_explicit(&ring->head, memory_order_acquire);
    *end = head;
    *first = head > ring->capacity ? head - ring->capacity : 0;
}
