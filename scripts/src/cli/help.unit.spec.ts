import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { COMMAND_KEYS } from '../cli';
import { COMMANDS, closestCommand, editDistance, helpFor, parseUsage, resolveCommand, unknownCommandLine } from './help';

const test = suite('cli help and suggestions');

test('given the usage text, every command it documents is one the CLI runs, and every command the CLI runs is documented', () => {
  // `ledger info` is answered by the entry point alone (./main.ts), without the services.
  for (const name of COMMANDS.filter((c) => c !== 'ledger info')) assert.ok(COMMAND_KEYS.includes(name.split(' ').slice(0, 2).join(' ')), `${name} is documented but not run`);
  for (const key of COMMAND_KEYS) assert.ok(COMMANDS.some((c) => c === key || c.startsWith(`${key} `)), `${key} runs but has no usage`);
  for (const name of COMMANDS) assert.ok(helpFor(name.split(' '))?.includes(`  ${name}`), `${name} has its own --help`);
});

test('given a usage entry with continuation lines, parseUsage keeps them with it and names the command by its leading words', () => {
  const entries = parseUsage('Usage: x\n\n  pool list [--tenant <slug>]   the pools\n                 more about it\n  events verify --all   every stream\n\nExit codes: 0');
  assert.equal(entries.map((e) => e.words), [['pool', 'list'], ['events', 'verify']]);
  assert.is(entries[0]!.text.split('\n').length, 2);
});

test('when argv starts with a command and its arguments, resolveCommand names the command', () => {
  assert.is(resolveCommand(['relais', 'hosts', 'approve', 'abc']), 'relais hosts approve');
  assert.is(resolveCommand(['pool', 'history', '1234', '--escrow']), 'pool history');
  assert.is(resolveCommand(['projection', 'status']), null);
});

test('when a command is mistyped, the closest is suggested (a transposition is one edit); nothing close, no suggestion', () => {
  assert.is(editDistance('reconcile', 'reconcilie'), 1);
  assert.is(editDistance('lsit', 'list'), 1);
  assert.is(closestCommand(['projection', 'status']).suggestion, 'projections status');
  assert.is(closestCommand(['tenant', 'lsit', '--limit', '2']).suggestion, 'tenant list');
  assert.is(closestCommand(['frobnicate']).suggestion, null);
  assert.is(unknownCommandLine(['projection', 'status']).split('\n').length, 1);
  assert.match(unknownCommandLine(['pool']), /'pool' needs a sub-command: history, state, list/);
});

test('the sandbox clock verbs: their own help, resolved with their argument, suggested when mistyped', () => {
  assert.is(resolveCommand(['sandbox', 'clock', 'advance', '7d']), 'sandbox clock advance');
  assert.is(resolveCommand(['sandbox', 'clock', 'show']), 'sandbox clock show');
  assert.match(helpFor(['sandbox', 'clock', 'advance'])!, /^ {2}sandbox clock advance <duration> .*\n.*1d12h or ISO 8601 P7D, PT2H/m);
  assert.not.match(helpFor(['sandbox', 'clock', 'advance'])!, /sandbox clock show/);
  assert.is(closestCommand(['sandbox', 'clock', 'advnace', '7d']).suggestion, 'sandbox clock advance');
  assert.is(closestCommand(['sandbox', 'clok', 'show']).suggestion, 'sandbox clock show');
  assert.match(unknownCommandLine(['sandbox', 'clock']), /'sandbox clock' needs a sub-command: advance, show/);
});

test.run();
