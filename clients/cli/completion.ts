import { Argument, type Command, type Option } from 'commander';
import { UsageError } from './exit-codes.ts';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

export interface Candidate {
  value: string;
  description: string;
}

/** Every option a command accepts where it stands: its own, then each parent's (the global flags). */
function optionsAt(cmd: Command): Option[] {
  const own = cmd.options as Option[];
  return cmd.parent ? [...own, ...optionsAt(cmd.parent)] : own;
}

const takesValue = (o: Option) => o.required || o.optional;
const visible = (c: Command) => !(c as Command & { _hidden?: boolean })._hidden;

/**
 * What may come next on `svc WORDS...`, the last word being the one typed so far: the values of the
 * flag before it (a fixed list such as -o's, or nothing for a file or free text, where the shell
 * completes file names), the flags of the command reached when it starts with `-`, else its
 * subcommands, else the fixed values of its argument. Walks the same command tree that parses the
 * line, so it cannot drift from it.
 */
export function completionCandidates(program: Command, words: string[]): Candidate[] {
  const current = words.at(-1) ?? '';
  let cmd = program;
  let awaitingValueOf: Option | undefined;
  for (const word of words.slice(0, -1)) {
    if (awaitingValueOf) {
      awaitingValueOf = undefined;
      continue;
    }
    if (word.startsWith('-')) {
      const option = optionsAt(cmd).find((o) => o.long === word || o.short === word);
      if (option && takesValue(option)) awaitingValueOf = option;
      continue;
    }
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (sub) cmd = sub;
  }
  const startingWith = (list: Candidate[]) => list.filter((c) => c.value.startsWith(current));
  if (awaitingValueOf)
    return startingWith((awaitingValueOf.argChoices ?? []).map((value) => ({ value, description: '' })));
  if (current.startsWith('-')) {
    const flags = optionsAt(cmd)
      .filter((o) => !o.hidden && o.long)
      .map((o) => ({ value: o.long!, description: o.description }));
    return startingWith([...flags, { value: '--help', description: 'show help for this command' }]);
  }
  const subs = cmd.commands.filter(visible).map((c) => ({ value: c.name(), description: c.description() }));
  if (subs.length) return startingWith(subs);
  const argument = (cmd.registeredArguments as readonly Argument[])[0];
  return startingWith((argument?.argChoices ?? []).map((value) => ({ value, description: '' })));
}

/** The lines `svc __complete SHELL -- WORDS` prints: bare values, or value TAB description for fish. */
export function formatCandidates(candidates: Candidate[], shell: Shell): string {
  return candidates
    .map((c) => (shell === 'fish' && c.description ? `${c.value}\t${c.description.split('\n')[0]}` : c.value))
    .map((l) => `${l}\n`)
    .join('');
}

/**
 * The script `svc completion SHELL` prints. Each asks `svc __complete` for the candidates of the line
 * being typed, so commands and flags added later complete without a new script; when there are none
 * (a file argument, free text) the shell completes file names.
 */
export function completionScript(shell: string): string {
  switch (shell) {
    case 'bash':
      return `# svc completion for bash. Load it with: source <(svc completion bash)
# or install it: svc completion bash > /etc/bash_completion.d/svc
_svc_complete() {
  local IFS=$'\\n'
  COMPREPLY=($(svc __complete bash -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
}
complete -o default -F _svc_complete svc
`;
    case 'zsh':
      return `#compdef svc
# svc completion for zsh. Load it with: source <(svc completion zsh) (after compinit)
# or install it as _svc in a folder of $fpath: svc completion zsh > "\${fpath[1]}/_svc"
_svc() {
  local -a candidates
  candidates=("\${(@f)$(svc __complete zsh -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  candidates=(\${candidates:#})
  if (( \${#candidates} )); then
    compadd -a candidates
  else
    _files
  fi
}
if [[ "\${funcstack[1]}" = "_svc" ]]; then
  _svc "$@"
else
  compdef _svc svc
fi
`;
    case 'fish':
      return `# svc completion for fish. Load it with: svc completion fish | source
# or install it: svc completion fish > ~/.config/fish/completions/svc.fish
function __svc_complete
    set -l words (commandline -opc) (commandline -ct)
    set -l candidates (svc __complete fish -- $words[2..-1] 2>/dev/null)
    if test (count $candidates) -gt 0
        printf '%s\\n' $candidates
    else
        __fish_complete_path (commandline -ct)
    end
end
complete -c svc -f -a '(__svc_complete)'
`;
    default:
      throw new UsageError(`completion takes ${SHELLS.join(', ')}; got "${shell}"`);
  }
}

/** `svc completion bash|zsh|fish`, and the hidden `svc __complete SHELL -- WORDS` the scripts call. */
export function registerCompletionCommands(program: Command): void {
  program
    .command('completion')
    .description('Print the shell completion script for bash, zsh or fish')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(SHELLS))
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  $ source <(svc completion bash)          # in ~/.bashrc',
        '  $ source <(svc completion zsh)           # in ~/.zshrc, after compinit',
        '  $ svc completion fish > ~/.config/fish/completions/svc.fish',
      ].join('\n'),
    )
    .action((shell: string) => void process.stdout.write(completionScript(shell)));
  program
    .command('__complete', { hidden: true })
    .argument('<shell>')
    .argument('[words...]')
    .allowUnknownOption()
    .action((shell: string, words: string[]) => {
      if (!(SHELLS as readonly string[]).includes(shell)) throw new UsageError(`__complete takes ${SHELLS.join(', ')}`);
      // An empty last word (the cursor after a space) is what the shells pass for "anything next".
      process.stdout.write(
        formatCandidates(completionCandidates(program, words.length ? words : ['']), shell as Shell),
      );
    });
}
