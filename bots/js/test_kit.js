#!/usr/bin/env node
// test_kit.js: a probe of the arena.js kit for bots/test-kits.sh (not a bot to copy).
// Its first choose throws and its second returns a move that is not legal (the kit must
// play the first legal move both times); later ones send an info line with everything
// the kit parsed, and play the last legal move. The C and C++ kits have the same probe;
// the script checks that all three answer one session identically.
'use strict';
const arena = require('./arena.js');

let calls = 0;
const ms = (v) => (v === null ? '-' : String(v));
arena.run(
  'probe kit',
  (t) => {
    calls++;
    if (calls === 1) throw new Error('a bug in choose');
    if (calls === 2) return 'zz';
    arena.info(
      `n=${calls} game=${t.game.name} seat=${t.game.seat} seed=${t.game.seed} ` +
        `holes=${t.game.params.get('holes') ?? '-'} params=${t.game.params.size} ` +
        `played=${t.game.played.length} time=${ms(t.clock.time)} opptime=${ms(t.clock.opptime)} ` +
        `inc=${t.clock.inc} movetime=${ms(t.clock.movetime)} budget=${ms(t.clock.budgetMs())} ` +
        `legal=${t.legal.length} state=${t.state}`,
    );
    return t.legal[t.legal.length - 1];
  },
  {
    onGameover: (r, g) => arena.log(`gameover ${r.outcome} ${r.reason} in ${g.name}`),
    // With --setup: the untimed set-up reports the game it was called for.
    onSetup:
      process.argv[2] === '--setup'
        ? (g) => arena.info(`setup game=${g.name} seat=${g.seat} played=${g.played.length}`)
        : undefined,
  },
);
