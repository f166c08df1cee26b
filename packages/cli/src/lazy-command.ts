/**
 * A command tree that is cheap to build: it holds stand-ins with the name
 * and summary of commands whose modules are not loaded yet. When commander
 * dispatches to a stand-in (to run the command or show its help), the
 * stand-in loads the real command, puts it in its place and has the program
 * parse the same command line again, so the real command sees the line
 * exactly as if it had been in the tree all along.
 */
import type { ParseOptions } from 'commander';
import { Command, Help } from 'commander';
import { AgentStateError } from '@agentstate/core/errors';
import type { CommandEntry } from './command-list.js';
import { SUMMARIES } from './command-list.js';

/**
 * Raised by a stand-in asked for its help directly (`agentstate help
 * memory`): commander wants the help synchronously, but the real command
 * loads asynchronously, so the program catches this, loads it and shows its
 * help. It never leaves {@link LazyProgram.parseAsync}.
 */
class HelpOfStandIn extends AgentStateError {
  readonly code = 'usage' as const;
  constructor(readonly standIn: StandIn) {
    super(`the help of ${standIn.name()} is shown once it is loaded`);
  }
}

/** A command whose module is not loaded yet. */
class StandIn extends Command {
  constructor(
    readonly entry: CommandEntry,
    readonly prepare: (real: Command) => void,
  ) {
    super(entry.name);
  }

  override help(): never {
    throw new HelpOfStandIn(this);
  }
}

/** A program whose commands may be stand-ins, loaded when they run. */
export class LazyProgram extends Command {
  #line: { argv?: readonly string[]; options?: ParseOptions } = {};

  override async parseAsync(argv?: readonly string[], options?: ParseOptions): Promise<this> {
    this.#line = { argv: argv === undefined ? undefined : [...argv], options };
    try {
      return await super.parseAsync(argv, options);
    } catch (error) {
      if (!(error instanceof HelpOfStandIn)) throw error;
      return (await this.#load(error.standIn)).help();
    }
  }

  /**
   * Adds a stand-in for `entry`. `prepare` is applied to the real command
   * once it is loaded, as it was to the rest of the tree (error and output
   * settings).
   */
  addLazyCommand(entry: CommandEntry, prepare: (real: Command) => void): this {
    const standIn = new StandIn(entry, prepare)
      .description(SUMMARIES[entry.name])
      .helpOption(false)
      .allowUnknownOption()
      .allowExcessArguments()
      .action(async () => {
        await this.#load(standIn);
        await super.parseAsync(this.#line.argv, this.#line.options);
      });
    return this.addCommand(standIn);
  }

  /** Loads the command `standIn` stands for and puts it in its place, keeping the order of the help. */
  async #load(standIn: StandIn): Promise<Command> {
    const real = await standIn.entry.load();
    standIn.prepare(real);
    const commands = this.commands as Command[];
    const at = commands.indexOf(standIn);
    commands.splice(at, 1);
    this.addCommand(real);
    commands.splice(at, 0, commands.pop()!);
    return real;
  }
}

/**
 * The term the list of commands shows for `cmd` (for `configureHelp`): a
 * stand-in's is the one of the command it stands for, whose options and
 * arguments are not defined yet.
 */
export function subcommandTerm(this: void, cmd: Command): string {
  return cmd instanceof StandIn ? cmd.entry.term : Help.prototype.subcommandTerm.call(new Help(), cmd);
}
