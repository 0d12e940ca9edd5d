// arena.js: a one-module kit for writing arena bots in Node.js (no packages).
//
// The kit runs the line protocol of protocol.md between the referee and your bot; you
// write one function:
//
//     const arena = require('./arena.js');
//     arena.run('my-bot', (turn) => turn.legal[0]);
//
// `turn.state` is the latest `position` text (without the word), `turn.legal` the moves
// of the latest `legal` line, `turn.clock` the fields of the `go` line (a Clock),
// `turn.game` the current game (a Game: the `newgame` line and the `played` moves since).
// Return one of the legal moves.
//
// What the kit does for you (as bots/python/arena_bot.py and the C, C++ and Java kits):
// - answers `arena 1` with `ready <name>` at once (do heavy set-up later: in onSetup,
//   off the clock at the start of each game, never before run; onNewgame and choose
//   are on your first move's clock);
// - tolerates "\r\n", runs of spaces and tabs, ignores empty lines and lines it does not
//   know (a newer referee may send more messages, or more key=value fields);
// - writes each line at once (writes to a pipe are synchronous in Node on Linux); log with
//   arena.log (stderr), never console.log (that is stdout);
// - answers every `go` with exactly one `move`: if choose throws or returns a move that
//   is not in the legal list, it logs that and plays the first legal move;
// - exits with status 0 on `quit` or at end of input.
'use strict';
const readline = require('readline');

const PROTOCOL_VERSION = '1';

function log(...parts) {
  console.error(...parts);
}

function send(line) {
  process.stdout.write(line + '\n');
}

// An `info <text>` line for the referee's record: one line, whitespace collapsed.
function info(text) {
  const words = String(text).split(/\s+/).filter((w) => w !== '');
  send(words.length ? 'info ' + words.join(' ') : 'info');
}

function split(text) {
  return text.split(/[ \t]+/).filter((w) => w !== '');
}

// `key=value key=value ...` as a Map (in order); a token without `=` maps to ''.
// Works for states (`pits=... stores=... turn=0`), newgame and go fields.
function parseFields(text) {
  const fields = new Map();
  for (const w of split(text)) {
    const eq = w.indexOf('=');
    if (eq < 0) fields.set(w, '');
    else fields.set(w.slice(0, eq), w.slice(eq + 1));
  }
  return fields;
}

function toU64(text) {
  try {
    return BigInt.asUintN(64, BigInt(text));
  } catch (e) {
    return 0n;
  }
}

// The fields of one `go` line, in ms; null where the referee sent `-` (no limit).
class Clock {
  constructor(rest, started) {
    const ms = (v) => {
      if (v === undefined || v === '-' || !/^-?[0-9]+$/.test(v)) return null;
      return Math.max(0, Number(v));
    };
    const f = parseFields(rest || '');
    this.time = ms(f.get('time')); // your remaining game clock
    this.opptime = ms(f.get('opptime')); // your opponent's
    this.inc = ms(f.get('inc')) || 0; // added to your clock after this move
    this.movetime = ms(f.get('movetime')); // the limit for this one decision
    this.started = started !== undefined ? started : process.hrtime.bigint();
  }

  // Milliseconds since the `go` line arrived.
  elapsedMs() {
    return Number(process.hrtime.bigint() - this.started) / 1e6;
  }

  // A suggested thinking time in ms, or null when nothing limits this move: `safety` of
  // movetime, and about 1/movesToGo of the game clock plus the increment (never more
  // than half the clock), whichever is smaller, less reserveMs. As the Python kit's.
  budgetMs(movesToGo = 30, safety = 0.8, reserveMs = 50) {
    const limits = [];
    if (this.movetime !== null) limits.push(this.movetime * safety - reserveMs);
    if (this.time !== null) {
      limits.push((this.time / Math.max(1, movesToGo) + this.inc) * safety - reserveMs);
      limits.push(this.time * 0.5 - reserveMs);
    }
    if (limits.length === 0) return null;
    return Math.max(0, Math.floor(Math.min(...limits)));
  }
}

// The current game, from its `newgame` line, plus the moves `played` since.
class Game {
  constructor(rest) {
    const words = split(rest || '');
    this.name = words.length ? words[0] : ''; // "dakon", "latrunculi" (or a newer game)
    this.seat = 0; // 0 or 1; seat 0 moves first
    this.seed = 0n; // the game's seed, a BigInt (it is 64-bit)
    this.params = new Map(); // every game parameter, as strings, in the game's order
    this.played = []; // [seat, move] pairs, in order
    this.result = null; // then {outcome, reason, fields}
    for (const [k, v] of parseFields(words.slice(1).join(' '))) {
      if (k === 'seat') this.seat = Number(v) || 0;
      else if (k === 'seed') this.seed = toU64(v);
      else this.params.set(k, v);
    }
  }
}

// splitmix64 over BigInt: the generator of the C, C++ and Java random bots, so with the
// same seeds they pick the same moves.
const MASK = (1n << 64n) - 1n;
class SplitMix64 {
  constructor(seed = 0n) {
    this.state = BigInt.asUintN(64, BigInt(seed));
  }
  next() {
    this.state = (this.state + 0x9e3779b97f4a7c15n) & MASK;
    let z = this.state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
    return z ^ (z >> 31n);
  }
  // Uniform in [0, n), without modulo bias; n > 0.
  below(n) {
    const big = BigInt(n);
    const limit = MASK - (MASK % big);
    let r;
    do {
      r = this.next();
    } while (r >= limit);
    return Number(r % big);
  }
}

// The command line of the reference bots: `--seed N` (default 0), as a 64-bit BigInt.
// Exits with status 2 and a usage line on anything else.
function parseSeed(argv = process.argv.slice(2), program = 'bot') {
  let seed = 0n;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--seed' && i + 1 < argv.length && /^-?[0-9]+$/.test(argv[i + 1])) {
      seed = BigInt.asUintN(64, BigInt(argv[++i]));
    } else {
      log(`usage: ${program} [--seed N]`);
      process.exit(2);
    }
  }
  return seed;
}

function decide(name, choose, turn) {
  let move;
  try {
    move = choose(turn);
  } catch (e) {
    log(`${name}: choose threw: ${e && e.stack ? e.stack : e}`);
    return turn.legal[0];
  }
  if (typeof move !== 'string' || !turn.legal.includes(move)) {
    log(`${name}: choose returned ${JSON.stringify(move)}, not a legal move; playing ${turn.legal[0]}`);
    return turn.legal[0];
  }
  return move;
}

// Plays until `quit` or end of input, then exits with status 0.
// hooks: {onNewgame(game), onPlayed(seat, move, game), onGameover(result, game),
// onSetup(game)}. onSetup is the untimed set-up of each game (load books, tables,
// networks there; synchronous): given, the kit puts `isready` in its `ready` line, the
// referee sends `isready` at each game (after `newgame` and the opening's `played`
// lines) and waits, off the clock, within the start-up limit, for the `readyok` the kit
// sends when onSetup returns.
function run(name, choose, hooks = {}) {
  const words = split(String(name)).concat(hooks.onSetup ? ['isready'] : []);
  const ready = ('ready ' + words.join(' ')).trimEnd();
  let game = new Game('');
  let state = '';
  let legal = null;
  let quitting = false;
  // The referee went away while we wrote: nothing left to say to anyone.
  process.stdout.on('error', () => process.exit(0));
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  rl.on('line', (raw) => {
    if (quitting) return; // readline may still hand over lines it had buffered
    const started = process.hrtime.bigint();
    const line = raw.replace(/\r$/, '');
    const m = /^[ \t]*([^ \t]+)[ \t]*(.*)$/.exec(line);
    if (!m) return; // an empty line
    const [, command, rest] = m;
    switch (command) {
      case 'arena':
        if (split(rest)[0] !== PROTOCOL_VERSION) {
          log(`${name}: the referee speaks protocol '${rest}', this kit knows ${PROTOCOL_VERSION}; answering anyway`);
        }
        send(ready);
        break;
      case 'isready':
        if (hooks.onSetup) hooks.onSetup(game);
        send('readyok');
        break;
      case 'newgame':
        game = new Game(rest);
        state = '';
        legal = null;
        if (hooks.onNewgame) hooks.onNewgame(game);
        break;
      case 'position':
        state = rest.replace(/[ \t]+$/, '');
        break;
      case 'legal':
        legal = split(rest);
        break;
      case 'go': {
        if (!legal || legal.length === 0) {
          // The referee never does this (protocol.md: `legal` is never empty).
          log(`${name}: 'go' without a 'legal' line; no move to send`);
          break;
        }
        const turn = { state, legal, clock: new Clock(rest, started), game };
        send('move ' + decide(name, choose, turn));
        legal = null;
        break;
      }
      case 'played': {
        const w = split(rest);
        if (w.length >= 2) {
          const seat = Number(w[0]);
          game.played.push([seat, w[1]]);
          if (hooks.onPlayed) hooks.onPlayed(seat, w[1], game);
        }
        break;
      }
      case 'gameover': {
        const w = split(rest);
        game.result = { outcome: w[0] || '', reason: w[1] || '', fields: parseFields(w.slice(2).join(' ')) };
        if (hooks.onGameover) hooks.onGameover(game.result, game);
        break;
      }
      case 'quit':
        quitting = true;
        rl.close();
        break;
      default:
        // A newer referee's message: ignored, as protocol.md asks.
        break;
    }
  });
  // End of input or `quit`: let pending output drain, then leave.
  rl.on('close', () => {
    process.stdout.write('', () => process.exit(0));
  });
}

module.exports = { PROTOCOL_VERSION, Clock, Game, SplitMix64, info, log, parseFields, parseSeed, run };
