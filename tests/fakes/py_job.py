# py_job.py — a "training job" in Python over the fake NCCL and CUDA (ctypes), for the stacks
# tests (t0460). One process per rank: RANK, WORLD_SIZE, FAKES (the fakes' folder) and ID_FILE
# (where rank 0 leaves the unique id) come from the environment, as a launcher would set them.
# Each rank makes the world communicator and runs steps of an all_reduce on it, waiting for its
# stream after each. Faults:
#   STUCK=r@s   rank r, at step s, sits in load_batch (time.sleep) and never issues the all_reduce
#   GIL=r@s     rank r, at step s, enters C code that spins while holding the GIL (ctypes.PyDLL),
#               while a second thread of it waits for the GIL
# NCCL is called through the process's global scope (ctypes.CDLL(None)), as PyTorch's linked
# libnccl is, so that the preloaded recorder sees the calls.
import ctypes
import os
import threading
import time

RANK = int(os.environ["RANK"])
WORLD = int(os.environ.get("WORLD_SIZE", "4"))
FAKES = os.environ["FAKES"]
ID_FILE = os.environ["ID_FILE"]

cuda = ctypes.CDLL(os.path.join(FAKES, "libcuda.so.1"), mode=ctypes.RTLD_GLOBAL)
ctypes.CDLL(os.path.join(FAKES, "libnccl.so.2"), mode=ctypes.RTLD_GLOBAL)
nccl = ctypes.CDLL(None)
gil_holding = ctypes.PyDLL(os.path.join(FAKES, "libcuda.so.1"))


class UniqueId(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_char * 128)]


def fault(name):
    rank, _, step = os.environ.get(name, "-1@-1").partition("@")
    return int(rank), int(step)


def unique_id():
    if RANK == 0:
        uid = UniqueId()
        nccl.ncclGetUniqueId(ctypes.byref(uid))
        with open(ID_FILE + ".tmp", "wb") as f:
            f.write(bytes(uid))  # the raw 128 bytes (.internal would stop at a NUL)
        os.rename(ID_FILE + ".tmp", ID_FILE)
        return uid
    while not os.path.exists(ID_FILE):
        time.sleep(0.01)
    with open(ID_FILE, "rb") as f:
        return UniqueId.from_buffer_copy(f.read(128))


def setup():
    ctx, stream, comm = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
    cuda.cuInit(0)
    cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), 0)
    cuda.cuCtxSetCurrent(ctx)
    cuda.cuStreamCreate(ctypes.byref(stream), 0)
    uid = unique_id()
    if nccl.ncclCommInitRank(ctypes.byref(comm), WORLD, uid, RANK) != 0:
        raise SystemExit("ncclCommInitRank failed")
    return comm, stream


def load_batch(step):
    time.sleep(3600)  # the data loader that never returns


def wait_for_gil():
    while True:
        time.sleep(0.001)  # every wake-up needs the GIL, which the spinning thread holds


def hold_the_gil():
    threading.Thread(target=wait_for_gil, name="gil-waiter", daemon=True).start()
    time.sleep(0.2)
    gil_holding.fakeHostSpin()


def all_reduce_and_wait(comm, stream):
    nccl.ncclAllReduce(None, None, ctypes.c_size_t(1024), 7, 0, comm, stream)
    cuda.cuStreamSynchronize(stream)


def train():
    comm, stream = setup()
    stuck, gil = fault("STUCK"), fault("GIL")
    for step in range(6):
        if (RANK, step) == stuck:
            load_batch(step)
        if (RANK, step) == gil:
            hold_the_gil()
        all_reduce_and_wait(comm, stream)


train()
