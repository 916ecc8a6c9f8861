/* smoke_real.c — the shim in front of the real libnccl.so.2, on a machine without a GPU.
 *
 *   LD_PRELOAD=libfrtrace-recorder.so smoke-real /path/to/libnccl.so.2
 *
 * Loads NCCL with dlopen (RTLD_GLOBAL, as frameworks do) and calls through the global symbol
 * scope, so the shim's wrappers are what runs. Checks that ncclGetVersion and ncclGetUniqueId
 * work, that ncclCommInitRank fails cleanly (no GPU) and that the process neither crashes nor
 * hangs. Prints "version N", "unique id ok", "init rank: <result>" and "done".
 */
#include <dlfcn.h>
#include <nccl.h>
#include <stdio.h>

typedef ncclResult_t (*get_version_fn)(int *);
typedef ncclResult_t (*get_unique_id_fn)(ncclUniqueId *);
typedef ncclResult_t (*init_rank_fn)(ncclComm_t *, int, ncclUniqueId, int);
typedef const char *(*error_string_fn)(ncclResult_t);

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "libnccl.so.2";
    if (dlopen(path, RTLD_NOW | RTLD_GLOBAL) == NULL) {
        printf("cannot load %s: %s\n", path, dlerror());
        return 2;
    }
    get_version_fn get_version = (get_version_fn)dlsym(RTLD_DEFAULT, "ncclGetVersion");
    get_unique_id_fn get_id = (get_unique_id_fn)dlsym(RTLD_DEFAULT, "ncclGetUniqueId");
    init_rank_fn init_rank = (init_rank_fn)dlsym(RTLD_DEFAULT, "ncclCommInitRank");
    error_string_fn error_string = (error_string_fn)dlsym(RTLD_DEFAULT, "ncclGetErrorString");
    Dl_info where;
    if (dladdr((void *)init_rank, &where) != 0)
        printf("ncclCommInitRank from %s\n", where.dli_fname);
    int version = 0;
    ncclUniqueId id;
    ncclComm_t comm = NULL;
    if (get_version(&version) != ncclSuccess) return 1;
    printf("version %d\n", version);
    if (get_id(&id) != ncclSuccess) return 1;
    printf("unique id ok\n");
    ncclResult_t r = init_rank(&comm, 1, id, 0);
    printf("init rank: %s\n", error_string(r));
    printf("done\n");
    return 0;
}
