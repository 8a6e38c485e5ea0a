/*
 * gateway/box.h - starting a run's box (box.c), for the routes that start
 * or restart one (runner_routes.c, operator.c, expiry.c), and the kinds
 * of box that have a process, each behind one table of operations (as
 * libgit2's backends are): box.c reads the run's row, mints its token and
 * dispatches to the kind's ops; a kind (`local` in box.c, `openshell` in
 * box_openshell.c) only starts its box, and never calls back into box.c
 * or into the routes that start boxes.
 */
#ifndef LOCUS_GATEWAY_BOX_H
#define LOCUS_GATEWAY_BOX_H

#include "gateway/gw.h"

/* Start (or restart) run_id's box when its kind is one that has a process
   (local, openshell); none: nothing.  Outside any transaction. */
int gw_box_start(gw_server *s, const char *run_id, locus_error *err);

/* One start of a run's box, as box.c read and made it (borrowed). */
typedef struct gw_box_run {
	const char *run_id;
	const char *token;     /* the fresh run token */
	const char *manifest;  /* the run's manifest (JSON text) */
	const char *workspace; /* the run's workspace, or NULL */
	const char *key_env;   /* the model's key variable, or NULL */
	int64_t n;             /* this start's number */
} gw_box_run;

typedef struct gw_box_ops {
	const char *kind; /* the run's `box` ("local", "openshell") */
	/* What the run lacks for this kind (err set), inside the start's
	   transaction; NULL: nothing is needed. */
	int (*check)(const gw_box_run *b, locus_error *err);
	/* The name of the n-th start's box, recorded in the audit
	   ("sandbox"); NULL: unnamed. */
	void (*name)(const char *run_id, int64_t n, char out[24]);
	/* Start the box, outside any transaction. */
	int (*start)(gw_server *s, const gw_box_run *b, locus_error *err);
} gw_box_ops;

/* box_openshell.c: an OpenShell sandbox whose main process is the
   runner. */
extern const gw_box_ops gw_box_openshell;

#endif
