#!/usr/bin/env node
// A minimal arena bot in Node.js: a uniformly random legal move, in any game.
//
//   node bots/js/random_bot.js [--seed N]
//
// Deterministic: at each `newgame ... seed=S` the generator restarts from N ^ S
// (64-bit, as BigInt), so the same seeds give the same moves.
// Pitfalls handled: "\r\n" line ends (readline with crlfDelay), unknown lines ignored,
// logging only to stderr (console.error), exit on `quit` or end of input.
'use strict';
const readline = require('readline');

let botSeed = 0n;
for (let i = 2; i < process.argv.length; i++) {
  if (process.argv[i] === '--seed' && i + 1 < process.argv.length) {
    const text = process.argv[++i];
    if (!/^-?[0-9]+$/.test(text)) { console.error('random_bot.js: --seed wants an integer'); process.exit(2); }
    botSeed = BigInt.asUintN(64, BigInt(text));
  } else {
    console.error('usage: random_bot.js [--seed N]');
    process.exit(2);
  }
}

// splitmix64, the same generator as the C bot.
const MASK = (1n << 64n) - 1n;
let state = botSeed;
function nextRandom() {
  state = (state + 0x9E3779B97F4A7C15n) & MASK;
  let z = state;
  z = ((z ^ (z >> 30n)) * 0xBF58476D1CE4E5B9n) & MASK;
  z = ((z ^ (z >> 27n)) * 0x94D049BB133111EBn) & MASK;
  return z ^ (z >> 31n);
}
function randomBelow(n) {
  const big = BigInt(n);
  const limit = MASK - (MASK % big); // reject the top sliver: no modulo bias
  let r;
  do { r = nextRandom(); } while (r >= limit);
  return Number(r % big);
}

// On Linux, writes to a pipe are synchronous in Node: each line leaves at once.
function send(line) { process.stdout.write(line + '\n'); }

function toU64(text) {
  try { return BigInt.asUintN(64, BigInt(text)); } catch (e) { return 0n; }
}

let legal = null;
let quitting = false;
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
rl.on('line', (raw) => {
  if (quitting) return; // readline may still hand over lines it had buffered
  const line = raw.replace(/\r$/, '');
  const words = line.split(' ').filter((w) => w !== '');
  if (words.length === 0) return;
  switch (words[0]) {
    case 'arena':
      send('ready random-js seed=' + botSeed);
      break;
    case 'newgame': {
      const seedWord = words.find((w) => w.startsWith('seed='));
      const gameSeed = seedWord ? toU64(seedWord.slice(5)) : 0n;
      state = botSeed ^ gameSeed;
      break;
    }
    case 'legal':
      legal = words.slice(1);
      break;
    case 'go':
      if (!legal || legal.length === 0) {
        console.error("random_bot.js: 'go' without legal moves");
        break;
      }
      send('move ' + legal[randomBelow(legal.length)]);
      legal = null;
      break;
    case 'quit':
      quitting = true;
      rl.close();
      break;
    default:
      // position, played, gameover, anything newer: nothing to do.
      break;
  }
});
// End of input or `quit`: let pending output drain, then leave.
rl.on('close', () => { process.stdout.write('', () => process.exit(0)); });
