"""A trio DAIDE client library and three sample no-press bots.

For bot authors:

* `bots.strategy.Strategy` - implement ``orders(view, rng)``: a read-only
  `bots.board.BoardView` (map as a `bots.geography.Geography`, units,
  dislodged units with their retreats, centre owners) and a seeded
  `random.Random` in, values of the one order model out (`orders`: ``Hold``,
  ``Move``, ``SupportMove`` ...; `bots.orders.unit_of` makes their units);
* `bots.client.BotClient` - plays a strategy on a server: joins (NME, or IAM
  to come back), builds the map from the server's MDF (any variant), tracks
  HLO/SCO/NOW/ORD/TME (`bots.tracking.GameTracker`), submits orders (written
  as DAIDE in the SUB, and nowhere else), checks
  every THX and MIS, refuses press the no-press way (`bots.press`), votes
  DRW if asked, leaves on OFF, reconnects with IAM after a lost connection;
* `bots.local.play_game` - the same strategies in process, straight through
  the adjudicator (benchmarks, tests).

The sample bots: `bots.holdbot.HoldBot`, `bots.randbot.RandBot`,
`bots.dumbbot.DumbBot` (valuation in `bots.values`; both plan convoys with
`bots.convoys`, and their order sets pass `bots.orders.unmatched_supports`
and `bots.convoys.unmatched_convoys`).  `bots.demo` plays the
demo game; `bots.record.GameWatcher` shows and records a game.

Nothing here imports the server: strategies never see sockets, and the
client speaks only through `protocol`.
"""
