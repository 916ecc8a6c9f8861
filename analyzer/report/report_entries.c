/* report_entries.c — `frtrace -j`: every rank's entries side by side, one column per rank, one row
 * per entry, as torchfrtrace prints them; no matching. --selected-ranks and --pg-filters pick the
 * columns and the entries. May be wide: it is a table to scroll, not a ticket. Its cells and
 * frames are in their terminal form (table.c, safe_text.h).
 */
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "safe_text.h"
#include "report/table.h"

static bool rank_selected(const fa_report_options *opt, int64_t rank) {
    if (!opt->selected_ranks) return true;
    for (size_t i = 0; i < opt->nselected_ranks; i++)
        if (opt->selected_ranks[i] == rank) return true;
    return false;
}

static bool group_selected(const fa_report_options *opt, const fr_entry *e) {
    if (!opt->pg_filters) return true;
    for (size_t i = 0; i < opt->npg_filters; i++)
        if ((e->pg_name && strcmp(e->pg_name, opt->pg_filters[i]) == 0) ||
            (e->pg_desc && strcmp(e->pg_desc, opt->pg_filters[i]) == 0))
            return true;
    return false;
}

int fa_report_entries(const fa_input *in, const fa_groups *groups, const fa_report_options *opt,
                      FILE *out) {
    (void)groups;
    size_t ncols = 0, longest = 0;
    for (size_t r = 0; r < in->nranks; r++)
        if (rank_selected(opt, in->ranks[r].rank)) {
            ncols++;
            if (in->ranks[r].dump->nentries > longest) longest = in->ranks[r].dump->nentries;
        }
    fa_table t;
    fa_table_init(&t, ncols);
    fa_table_row(&t);
    for (size_t r = 0; r < in->nranks; r++)
        if (rank_selected(opt, in->ranks[r].rank))
            fa_table_cell(&t, "Rank %lld", (long long)in->ranks[r].rank);
    for (size_t i = 0; i < longest; i++) {
        fa_table_row(&t);
        for (size_t r = 0; r < in->nranks; r++) {
            if (!rank_selected(opt, in->ranks[r].rank)) continue;
            const fa_dump *d = in->ranks[r].dump;
            fr_entry full, *e = &full;
            if (i < d->nentries) fa_entry_expand(in->store, d, &d->entries[i], &full);
            if (i >= d->nentries || !group_selected(opt, e)) {
                fa_table_cell(&t, "%s", "");
                continue;
            }
            char sizes[256];
            fa_shapes_text(&e->input_sizes, sizes, sizeof sizes);
            const char *name = strrchr(e->profiling_name, ':');
            if (opt->verbose)
                fa_table_cell(&t, "%s(pg=%s seq=%lld p2p=%lld in=%s, %s)",
                              name ? name + 1 : e->profiling_name, e->pg_name,
                              (long long)e->collective_seq_id, (long long)e->p2p_seq_id, sizes,
                              fr_state_name(e->state));
            else
                fa_table_cell(&t, "%s(%s #%lld, in=%s, %s)", name ? name + 1 : e->profiling_name,
                              e->pg_desc ? e->pg_desc : e->pg_name,
                              (long long)(e->is_p2p ? e->p2p_seq_id : e->collective_seq_id), sizes,
                              fr_state_name(e->state));
        }
    }
    fa_table_print_text(&t, out, "");
    fa_table_free(&t);
    if (opt->stack_traces) {
        fputs("\nstack traces (newest entry of each rank):\n", out);
        for (size_t r = 0; r < in->nranks; r++) {
            const fa_dump *d = in->ranks[r].dump;
            if (!rank_selected(opt, in->ranks[r].rank) || !d->nentries) continue;
            fr_entry full, *e = &full;
            fa_entry_expand(in->store, d, &d->entries[d->nentries - 1], &full);
            /* names and frames are the input's: shown, never obeyed (safe_text.h) */
            fr_text_printf(out, "rank %lld, %s:\n", (long long)in->ranks[r].rank,
                           e->profiling_name);
            for (uint32_t k = 0; k < e->nframes; k++)
                fr_text_printf(out, "    %s at %s:%lld\n",
                               e->frames[k].name ? e->frames[k].name : "?",
                               e->frames[k].filename ? e->frames[k].filename : "?",
                               (long long)e->frames[k].line);
        }
    }
    return ferror(out) ? -1 : 0;
}
