"""The bot checker (``daide check-bot``): a bot's program against short scripted games.

A bot author's question - does my bot speak the protocol, play every kind of
phase, survive what a server may send it? - answered by playing it, not by
reading server logs after a whole game:

* `botcheck.scenarios` - the short games: each on its own embedded server,
  most from a start position that puts the bot in the phase kind to check
  (``GameSettings.start``, as ``daide serve --start-from``);
* `botcheck.relay` - the relay between the bot and the server: the
  transcript of every message (DAIDE text), messages injected as if from
  the server, a dropped connection;
* `botcheck.play` - playing a scenario: the server, the other seats
  (HoldBots in process), the bot's program;
* `botcheck.judge` - the checks, each pass / warn / fail with the messages
  behind it and one line of advice;
* `botcheck.report` - the report as text or JSON.
"""
