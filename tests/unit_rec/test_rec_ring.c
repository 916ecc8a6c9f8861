/* test_rec_ring.c — the recorder's ring and communicator identity, without NCCL.
 *
 * Ring: entries come back as written, the window keeps the newest N with consecutive ids,
 * state updates tagged with a stale id fail, and concurrent producers with a concurrent reader
 * never yield a torn copy (run under ThreadSanitizer by t0420). Comms: NCCL's hash is stable,
 * splits differ by counter and color, shrinks by the excluded set in any order, and the
 * registry finds, retires and forgets handles.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "comms.h"
#include "ring.h"

static rec_call_words make_call(rec_ring *ring, uint64_t count) {
    rec_call_words c;
    memset(&c, 0, sizeof c);
    c.call.record_id = rec_ring_reserve(ring);
    c.call.count = count;
    c.call.coll_seq = (int64_t)count * 3;
    c.call.event = -1;
    return c;
}

static void test_roundtrip_and_window(void **state) {
    (void)state;
    rec_ring ring;
    assert_int_equal(rec_ring_init(&ring, 8), 0);
    for (uint64_t i = 0; i < 20; i++) {
        rec_call_words c = make_call(&ring, i);
        rec_ring_publish(&ring, &c, 0);
    }
    uint64_t first, end;
    rec_ring_window(&ring, &first, &end);
    assert_int_equal(first, 12);
    assert_int_equal(end, 20);
    for (uint64_t id = first; id < end; id++) {
        rec_snapshot s;
        assert_true(rec_ring_read(&ring, id, &s));
        assert_int_equal(s.call.count, id);
        assert_int_equal(s.call.coll_seq, (int64_t)id * 3);
        assert_int_equal(REC_STATUS_STATE(s.status), REC_SCHEDULED);
    }
    rec_snapshot old;
    assert_false(rec_ring_read(&ring, 3, &old)); /* overwritten */
}

static void test_state_updates_are_tagged(void **state) {
    (void)state;
    rec_ring ring;
    assert_int_equal(rec_ring_init(&ring, 4), 0);
    rec_call_words c = make_call(&ring, 1);
    rec_ring_publish(&ring, &c, REC_S_END_ARMED);
    assert_true(rec_ring_advance(&ring, 0, REC_STARTED, 111));
    assert_false(rec_ring_advance(&ring, 0, REC_STARTED, 112)); /* not backwards or twice */
    assert_true(rec_ring_advance(&ring, 0, REC_COMPLETED, 222));
    rec_snapshot s;
    assert_true(rec_ring_read(&ring, 0, &s));
    assert_int_equal(REC_STATUS_STATE(s.status), REC_COMPLETED);
    assert_true(s.status & REC_S_END_ARMED);
    assert_int_equal(s.time_started_ns, 111);
    assert_int_equal(s.time_completed_ns, 222);
    for (int i = 0; i < 4; i++) {
        rec_call_words n = make_call(&ring, 9);
        rec_ring_publish(&ring, &n, 0);
    }
    assert_false(rec_ring_advance(&ring, 0, REC_COMPLETED, 1)); /* slot moved on */
    rec_ring_set_bits(&ring, 0, REC_S_FAILED);
    assert_true(rec_ring_read(&ring, 4, &s));
    assert_false(s.status & REC_S_FAILED);
}

/* duration_ms: unknown until the watchdog sets it, kept per entry, reset when a slot is reused,
 * and a late setter for an entry whose slot moved on changes nothing. */
static void test_durations(void **state) {
    (void)state;
    rec_ring ring;
    assert_int_equal(rec_ring_init(&ring, 4), 0);
    rec_call_words c = make_call(&ring, 1);
    rec_ring_publish(&ring, &c, REC_S_START_ARMED | REC_S_END_ARMED);
    rec_snapshot s;
    assert_true(rec_ring_read(&ring, 0, &s));
    assert_false(s.has_duration);
    rec_ring_set_duration(&ring, 0, 1.5f);
    assert_true(rec_ring_read(&ring, 0, &s));
    assert_true(s.has_duration);
    assert_true(s.duration_ms == 1.5f);
    uint64_t reused = ring.nslots; /* the id that lands in slot 0 next */
    for (uint64_t i = 1; i <= reused; i++) {
        rec_call_words n = make_call(&ring, i);
        rec_ring_publish(&ring, &n, 0);
    }
    rec_ring_set_duration(&ring, 0, 9.0f); /* too late: the slot holds another entry */
    assert_true(rec_ring_read(&ring, reused, &s));
    assert_false(s.has_duration);
}

typedef struct race {
    rec_ring ring;
    _Atomic int producers_left;
    _Atomic uint64_t torn_seen, good_seen;
} race;

static void *producer(void *arg) {
    race *r = arg;
    for (int i = 0; i < 20000; i++) {
        rec_call_words c = make_call(&r->ring, 0);
        c.call.count = c.call.record_id; /* a reader checks the words agree */
        c.call.coll_seq = (int64_t)c.call.record_id;
        rec_ring_publish(&r->ring, &c, 0);
    }
    atomic_fetch_sub(&r->producers_left, 1);
    return NULL;
}

static void *reader(void *arg) {
    race *r = arg;
    bool last_pass;
    do { /* one more pass after the producers are done: then every entry reads whole */
        last_pass = atomic_load(&r->producers_left) == 0;
        uint64_t first, end;
        rec_ring_window(&r->ring, &first, &end);
        for (uint64_t id = first; id < end; id++) {
            rec_snapshot s;
            if (!rec_ring_read(&r->ring, id, &s)) {
                atomic_fetch_add(&r->torn_seen, 1);
                continue;
            }
            assert_int_equal(s.call.count, id);
            assert_int_equal(s.call.coll_seq, (int64_t)id);
            rec_ring_advance(&r->ring, id, REC_COMPLETED, 1);
            atomic_fetch_add(&r->good_seen, 1);
        }
    } while (!last_pass);
    return NULL;
}

static void test_concurrent_producers_and_reader(void **state) {
    (void)state;
    static race r;
    pthread_t p[3], rd;
    assert_int_equal(rec_ring_init(&r.ring, 64), 0);
    atomic_store(&r.producers_left, 3);
    pthread_create(&rd, NULL, reader, &r);
    for (int i = 0; i < 3; i++) pthread_create(&p[i], NULL, producer, &r);
    for (int i = 0; i < 3; i++) pthread_join(p[i], NULL);
    pthread_join(rd, NULL);
    uint64_t first, end;
    rec_ring_window(&r.ring, &first, &end);
    assert_int_equal(end, 60000);
    assert_true(atomic_load(&r.good_seen) > 0);
}

static void test_hashes(void **state) {
    (void)state;
    unsigned char id[128];
    for (int i = 0; i < 128; i++) id[i] = (unsigned char)i;
    uint64_t h = rec_hash_bytes(id, sizeof id);
    assert_int_equal(h, rec_hash_bytes(id, sizeof id));
    id[127] ^= 1;
    assert_int_not_equal(h, rec_hash_bytes(id, sizeof id));
    /* NCCL's digest of empty input: acc {1,1} ^ size 0, no rounds. */
    uint64_t acc0 = 1;
    acc0 ^= acc0 >> 31;
    acc0 *= 0xbac3bd562846de6bull;
    acc0 += 1;
    acc0 ^= acc0 >> 32;
    acc0 *= 0x995a187a14e7b445ull;
    assert_int_equal(rec_hash_bytes(id, 0), acc0);
    assert_int_not_equal(rec_hash_split(h, 1, 0), rec_hash_split(h, 2, 0));
    assert_int_not_equal(rec_hash_split(h, 1, 0), rec_hash_split(h, 1, 1));
    int a[] = { 3, 1, 2 }, b[] = { 2, 3, 1 }, c[] = { 1, 2 };
    assert_int_equal(rec_hash_shrink(h, 1, a, 3), rec_hash_shrink(h, 1, b, 3));
    assert_int_not_equal(rec_hash_shrink(h, 1, a, 3), rec_hash_shrink(h, 1, c, 2));
    assert_int_not_equal(rec_hash_shrink(h, 1, a, 3), rec_hash_shrink(h, 2, a, 3));
}

static void test_registry(void **state) {
    (void)state;
    rec_comms_reset();
    rec_comm_init init = { .handle = 0x1000,
                           .id = 0xabc,
                           .nccl_hash = 0xabc,
                           .parent = -1,
                           .color = -1,
                           .rank = 1,
                           .nranks = 4,
                           .blocking = true,
                           .name = NULL };
    int i = rec_comms_add(&init);
    assert_int_equal(i, 0);
    assert_int_equal(rec_comms_find(0x1000), 0);
    assert_int_equal(rec_comms_find(0x2000), -1);
    assert_string_equal(rec_comms_at(0)->pg_name, "0000000000000abc");
    assert_string_equal(rec_comms_at(0)->desc, "undefined");
    assert_string_equal(rec_comms_at(0)->hash_text, "0x0000000000000abc");
    rec_comms_retire(0, REC_COMM_DESTROYED);
    assert_int_equal(rec_comms_find(0x1000), -1);
    init.name = "DP Group 0";
    init.id = 0xdef;
    assert_int_equal(rec_comms_add(&init), 1); /* the address came back: a new communicator */
    assert_int_equal(rec_comms_find(0x1000), 1);
    assert_string_equal(rec_comms_at(1)->desc, "DP Group 0");
    assert_string_equal(rec_comm_state_name(atomic_load(&rec_comms_at(0)->state)), "destroyed");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_and_window),
        cmocka_unit_test(test_state_updates_are_tagged),
        cmocka_unit_test(test_durations),
        cmocka_unit_test(test_concurrent_producers_and_reader),
        cmocka_unit_test(test_hashes),
        cmocka_unit_test(test_registry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
