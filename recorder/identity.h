/* identity.h — which machine, process and GPU this is, for the dump's "frtrace_identity" key.
 *
 * "rank 9" means little to whoever must drain a node; the dump says "node-17, pid 4242, local
 * rank 3, GPU 3 (0000:5a:00.0, GPU-...)". The host name and local rank are read at activation,
 * the CUDA device when the first communicator is created (its device: ncclCommCuDevice, then
 * the driver's PCI bus id and UUID, through a libcuda.so.1 the process has already loaded, never
 * loading one itself), the NCCL version from the recorder's state, the pid at dump time (a forked
 * child dumps with its own). Filling a dump's identity only copies pointers to text written
 * before it is published: async-signal-safe, for the fatal-signal dump too.
 */
#ifndef FRTRACE_REC_IDENTITY_H
#define FRTRACE_REC_IDENTITY_H

#include "../formats/dump.h"

/* At activation: host name and local rank (LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_RANK,
 * MPI_LOCALRANKID, MV2_COMM_WORLD_LOCAL_RANK, SLURM_LOCALID, in that order). */
void rec_identity_init(void);
/* The CUDA device of the first communicator (-1: unknown); later calls change nothing. */
void rec_identity_note_device(int cuda_index);
/* This process's identity, as the dump's frtrace_identity. */
void rec_identity_fill(fr_identity *out);

#endif
