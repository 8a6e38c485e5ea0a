/*
 * runner/budget.c - what is left of the run's time budget (runner.h): the
 * loop, the model, admission and child runs ask it, run.c starts the clock.
 */
#include "runner/runner.h"

#include "util/clock.h"

double lr_run_left(const lr_run *r)
{
	if (!(r->m.budgets.timeout_s > 0))
		return 1e9;
	return r->m.budgets.timeout_s - (lu_now() - r->t0);
}
