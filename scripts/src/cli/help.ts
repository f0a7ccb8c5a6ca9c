/**
 * The CLI's help and its answer to a mistyped command, both read from the usage text (./usage.ts) so that a command
 * documented there is known here, with nothing else to keep in step. Loaded by the entry point without any command.
 *
 * The usage text lists one command per entry: a line indented by two spaces that starts with the command's words
 * (`  projections rebuild <name>   …`), continued by lines indented further. The words before the first argument,
 * flag or run of spaces are the command's name.
 */
import { EXIT_CODES, USAGE } from './usage';

export interface UsageEntry {
  /** The command's words, e.g. ['projections', 'rebuild']. */
  words: string[];
  /** The entry's lines as the usage text has them. */
  text: string;
}

const NAME_WORD = /^[a-z][a-z0-9-]*$/;

/** The entries of a usage text, in its order (one command may have several: `events verify` and `--all`). */
export const parseUsage = (usage: string): UsageEntry[] => {
  const entries: UsageEntry[] = [];
  for (const line of usage.split('\n')) {
    if (/^ {2}[a-z]/.test(line)) {
      const synopsis = line.trim().split(/ {2,}/)[0]!;
      const words: string[] = [];
      for (const w of synopsis.split(' ')) {
        if (!NAME_WORD.test(w)) break;
        words.push(w);
      }
      entries.push({ words, text: line });
    } else if (/^ {3,}\S/.test(line) && entries.length > 0) {
      entries[entries.length - 1]!.text += `\n${line}`;
    }
  }
  return entries;
};

export const ENTRIES = parseUsage(USAGE);

/** Every command's name, once each ('events verify', 'relais hosts list', …). */
export const COMMANDS: string[] = [...new Set(ENTRIES.map((e) => e.words.join(' ')))];

const startsWith = (words: string[], prefix: string[]) => prefix.length > 0 && prefix.every((w, i) => words[i] === w);

/** The leading words of argv that are not flags: what the operator typed as the command. */
const commandWords = (argv: string[]) => {
  const words: string[] = [];
  for (const a of argv) {
    if (a.startsWith('-')) break;
    words.push(a);
  }
  return words;
};

/** The command argv names: the longest known command its leading words start with, or null. */
export const resolveCommand = (argv: string[]): string | null => {
  const words = commandWords(argv);
  let best: string | null = null;
  for (const name of COMMANDS) {
    const n = name.split(' ');
    if (startsWith(words, n) && (!best || n.length > best.split(' ').length)) best = name;
  }
  return best;
};

/**
 * The help for the words given: the entries of that command, or of every command under that noun (`pool` gives
 * `pool list`, `pool history`, `pool state`), followed by the exit codes; null when no command starts with them.
 */
export const helpFor = (words: string[]): string | null => {
  const command = resolveCommand(words);
  const chosen = command ? ENTRIES.filter((e) => e.words.join(' ') === command) : ENTRIES.filter((e) => startsWith(e.words, words));
  if (chosen.length === 0) return null;
  const synopsis = command ?? `${words.join(' ')} <command>`;
  return `Usage: pnpm cli ${synopsis} …\n\n${chosen.map((e) => e.text).join('\n')}\n\n${EXIT_CODES}`;
};

/** Optimal string alignment distance (Damerau–Levenshtein with adjacent transpositions, each substring edited once). */
export const editDistance = (a: string, b: string): number => {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
};

/**
 * The closest known command to what argv starts with, compared over as many words as each command has; null when
 * nothing is close (more than a third of the typed text would change, and more than two edits).
 */
export const closestCommand = (argv: string[]): { typed: string; suggestion: string | null } => {
  const words = commandWords(argv);
  let best: { typed: string; name: string; distance: number } | null = null;
  for (const name of COMMANDS) {
    const n = name.split(' ').length;
    const typed = words.slice(0, n).join(' ');
    const distance = editDistance(typed, name);
    if (!best || distance < best.distance || (distance === best.distance && typed.length > best.typed.length)) best = { typed, name, distance };
  }
  const typed = best?.typed || words.join(' ') || argv.join(' ');
  if (!best || best.distance > Math.max(2, Math.floor(best.typed.length / 3))) return { typed, suggestion: null };
  return { typed, suggestion: best.name };
};

/** The one line an unknown command gets (on stderr, exit 2). */
export const unknownCommandLine = (argv: string[]): string => {
  const words = commandWords(argv);
  // A noun alone (`pool`, `relais hosts`): name the commands under it.
  const under = COMMANDS.filter((c) => startsWith(c.split(' '), words));
  if (under.length > 0) {
    const verbs = under.map((c) => c.split(' ').slice(words.length).join(' '));
    return `'${words.join(' ')}' needs a sub-command: ${verbs.join(', ')} (\`pnpm cli ${words.join(' ')} --help\`)`;
  }
  const { typed, suggestion } = closestCommand(argv);
  return suggestion
    ? `unknown command '${typed}'; did you mean '${suggestion}'? (\`pnpm cli ${suggestion} --help\`; \`pnpm cli --help\` lists every command)`
    : `unknown command '${typed}'; \`pnpm cli --help\` lists every command`;
};
