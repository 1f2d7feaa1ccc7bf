"""Gunboat (no-press) tournaments between DAIDE bots: `daide tournament`.

The package plays many games between bots on one DAIDE server and says,
with numbers and pictures, which bot is better.  Modules, outside in:

* `tournament.config` - the frozen `TournamentConfig` and `BotEntry` values
  (sample bots in process, external programs by command line);
* `tournament.design` - the seating plan: which bot plays which power in
  which game (a seeded cyclic design, balanced per power);
* `tournament.runner` - runs the plan on an embedded or an existing server,
  ``K`` games at a time, resumable (`run_tournament`);
* `tournament.cluster` - the same on a Ray cluster (``--ray``): each game a
  task with its own embedded server on a worker, results streamed back;
* `tournament.play` - one game: seats joined in a fixed order, an observer
  keeping the record, year and time limits, failures as civil disorder;
* `tournament.proxy` - the relay in front of each external bot (seating by
  name, hang detection);
* `tournament.store` - the tournament's own tables in the server's SQLite
  database;
* `tournament.scoring` and `tournament.stats` - scoring systems, means with
  bootstrap confidence intervals, per-power breakdown, head-to-head;
* `tournament.report` and `tournament.plots` - Markdown, CSV and SVG output;
* `tournament.progress` - the progress bar.
"""
