#!/usr/bin/env node
// example_bot.js: a uniformly random legal move, in any game, on the arena.js kit.
//
//   node bots/js/example_bot.js [--seed N]
//
// Deterministic: at each `newgame ... seed=S` the generator restarts from N ^ S with
// splitmix64, so it plays the moves of random_bot.js (the same bot without the kit) and
// of the C, C++ and Java random bots. Copy this file (and arena.js next to it) to start
// your own bot: choose gets the position, the legal moves, the clock and the game;
// return one of the legal moves.
'use strict';
const arena = require('./arena.js');

const botSeed = arena.parseSeed(process.argv.slice(2), 'example_bot.js');
let rng = new arena.SplitMix64(botSeed);

arena.run(
  'example-js seed=' + botSeed,
  (turn) => {
    // turn.state: the position text; turn.clock.budgetMs(): how long to think;
    // turn.game.params.get('holes'): a parameter; arena.info('...') sends an info line,
    // arena.log('...') writes to stderr.
    return turn.legal[rng.below(turn.legal.length)];
  },
  {
    onNewgame: (game) => {
      rng = new arena.SplitMix64(botSeed ^ game.seed); // same seeds, same game
    },
  },
);
