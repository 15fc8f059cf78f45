/* mcpspec's SanitizerCoverage runtime (`mcpspec fuzz --coverage sancov`).
 *
 * A native server built with trace-pc-guard instrumentation calls the two functions below:
 * the first once per instrumented module at start, the second on every edge it runs. Linked
 * into the server's build (the build changes, the source does not), this runtime numbers the
 * edges and marks each one run in a file mcpspec shares with the process (named by
 * MCPSPEC_SANCOV_FILE, mapped shared): byte N is 1 once edge N ran. Byte 0 is set when the
 * file is mapped, so mcpspec can tell a server built without this runtime. Without the
 * variable (the server run outside mcpspec) it does nothing.
 *
 * Write it with `mcpspec fuzz sancov-runtime FILE.c`; build it with
 * `cc -c -O2 -fPIC FILE.c -o mcpspec_sancov.o`; see the README ("Coverage guidance").
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static uint8_t *mcpspec_map;
static uint64_t mcpspec_map_size;
static uint32_t mcpspec_edges;

static void mcpspec_attach(void) {
  const char *path = getenv("MCPSPEC_SANCOV_FILE");
  if (path == NULL) return;
  int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st;
  if (fstat(fd, &st) == 0 && st.st_size > 1) {
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map != MAP_FAILED) {
      mcpspec_map = map;
      mcpspec_map_size = (uint64_t)st.st_size;
      mcpspec_map[0] = 1;
    }
  }
  close(fd);
}

void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop) {
  if (start == stop || *start != 0) return;
  if (mcpspec_map == NULL) mcpspec_attach();
  /* Edges are numbered from 1, module after module, in the order the loader runs them. */
  for (uint32_t *guard = start; guard < stop; guard++) *guard = ++mcpspec_edges;
}

void __sanitizer_cov_trace_pc_guard(uint32_t *guard) {
  uint32_t edge = *guard;
  if (edge < mcpspec_map_size && mcpspec_map != NULL) mcpspec_map[edge] = 1;
}
