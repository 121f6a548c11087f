#define _GNU_SOURCE
#include "clinux.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The code the service's D-Bus loop runs for a message (clinux_hot_code_names, from a profile:
 * scripts/link/hot-code.sh), as cache lines of this process: found once in the program's own
 * symbol table, then asked of the caches each time the loop wakes (clinux_hot_code_prefetch).
 * Between two messages other programs run on the same cores and evict it; run from memory, a
 * device share's path took 5-40 times as long as from the caches (docs/PERFORMANCE.md, session 14). */

/* The list, ending with a null (hot_code_names.c). */
extern const char *const clinux_hot_code_names[];

unsigned long clinux_hot_code_listed(void) {
    unsigned long n = 0;
    while (clinux_hot_code_names[n]) n++;
    return n;
}

struct hot_lines { size_t count; uintptr_t line[]; };
static struct hot_lines *hot; /* published once, with release order; read with acquire */

enum { hot_table_size = 4096, hot_max_lines = 16384 };

const long long clinux_hot_code_idle_ns = 500000;

static uint32_t name_hash(const char *s) {
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static int main_program_base(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    *(uintptr_t *)data = info->dlpi_addr;
    return 1; /* the first object is the program */
}

long clinux_hot_code_load(void) {
    if (__atomic_load_n(&hot, __ATOMIC_ACQUIRE)) return 0;
    /* The listed names, in an open-addressed table. */
    const char **table = calloc(hot_table_size, sizeof *table);
    if (!table) return -ENOMEM;
    for (const char *const *n = clinux_hot_code_names; *n; n++) {
        uint32_t i = name_hash(*n) & (hot_table_size - 1);
        while (table[i]) i = (i + 1) & (hot_table_size - 1);
        table[i] = *n;
    }
    long result = -ENOENT;
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(Elf64_Ehdr)) { result = -errno; goto done; }
    const unsigned char *file = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (file == MAP_FAILED) { result = -errno; goto done; }
    const Elf64_Ehdr *eh = (const void *)file;
    size_t size = (size_t)st.st_size;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
        eh->e_shoff > size || (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > size - eh->e_shoff) goto unmap;
    const Elf64_Shdr *sections = (const void *)(file + eh->e_shoff);
    uintptr_t base = 0;
    dl_iterate_phdr(main_program_base, &base);
    struct hot_lines *found = malloc(sizeof *found + hot_max_lines * sizeof(uintptr_t));
    if (!found) { result = -ENOMEM; goto unmap; }
    found->count = 0;
    for (unsigned s = 0; s < eh->e_shnum; s++) {
        const Elf64_Shdr *symtab = &sections[s];
        if (symtab->sh_type != SHT_SYMTAB || symtab->sh_link >= eh->e_shnum || symtab->sh_entsize != sizeof(Elf64_Sym)) continue;
        const Elf64_Shdr *strtab = &sections[symtab->sh_link];
        if (symtab->sh_offset > size || symtab->sh_size > size - symtab->sh_offset || strtab->sh_offset > size ||
            strtab->sh_size > size - strtab->sh_offset || strtab->sh_size == 0) continue;
        const Elf64_Sym *syms = (const void *)(file + symtab->sh_offset);
        const char *strings = (const char *)(file + strtab->sh_offset);
        size_t count = symtab->sh_size / sizeof(Elf64_Sym);
        for (size_t k = 0; k < count && found->count < hot_max_lines; k++) {
            const Elf64_Sym *sym = &syms[k];
            if (ELF64_ST_TYPE(sym->st_info) != STT_FUNC || sym->st_size == 0 || sym->st_name >= strtab->sh_size) continue;
            const char *name = strings + sym->st_name;
            if (memchr(name, 0, strtab->sh_size - sym->st_name) == NULL) continue;
            uint32_t i = name_hash(name) & (hot_table_size - 1);
            while (table[i] && strcmp(table[i], name) != 0) i = (i + 1) & (hot_table_size - 1);
            if (!table[i]) continue;
            uintptr_t start = base + sym->st_value, end = start + sym->st_size;
            for (uintptr_t line = start & ~(uintptr_t)63; line < end && found->count < hot_max_lines; line += 64) found->line[found->count++] = line;
        }
    }
    result = (long)found->count;
    if (found->count == 0) free(found);
    else __atomic_store_n(&hot, found, __ATOMIC_RELEASE);
unmap:
    munmap((void *)file, size);
done:
    if (fd >= 0) close(fd);
    free(table);
    return result;
}

/* The loop's last wake (CLOCK_MONOTONIC, ns): only the loop thread calls clinux_hot_code_prefetch. */
static long long last_wake;

void clinux_hot_code_prefetch(void) {
    const struct hot_lines *lines = __atomic_load_n(&hot, __ATOMIC_ACQUIRE);
    if (!lines) return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long ns = (long long)now.tv_sec * 1000000000LL + now.tv_nsec, idle = ns - last_wake;
    last_wake = ns;
    /* Woken again within half a millisecond the code is still cached (a pass over cached lines
     * costs 2-3 µs: paid at every wake of a busy loop, it would slow the calls it cannot speed). */
    if (idle < clinux_hot_code_idle_ns) return;
    for (size_t i = 0; i < lines->count; i++) __builtin_prefetch((const void *)lines->line[i], 0, 1);
}
