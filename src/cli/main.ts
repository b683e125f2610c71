import { Errors, toTributaryError } from '../errors.js';
import { packageVersion } from './package-version.js';

const HELP = `Usage: tributary <command> [options]

Commands:
  serve       serve a model repository (HTTP, gRPC, metrics)     tributary serve --help
  validate    check a repository's configs, models and pipelines  tributary validate --help
  graph       print a pipeline's graph (Mermaid or DOT)           tributary graph --help
  new-model   scaffold a TypeScript model directory               tributary new-model --help
  run-model   run one request through a model once, print outputs tributary run-model --help
  perf        load-test a model like perf_analyzer                tributary perf --help
  inspect     show captured requests, one as its tree of steps    tributary inspect --help
  replay      send captured requests again, compare the answers   tributary replay --help

Options:
  --help, -h  print this help
  --version   print tributary's version

tritonserver's habit works too: \`tributary --model-repository=<dir> ...\` means \`tributary serve ...\`.
`;

type Command = (argv: readonly string[]) => Promise<number>;
const serve: Command = async (argv) => (await import('./serve.js')).serve(argv);

// Imported when run: the server's modules (ONNX Runtime, isolated-vm) are about 190 MB of RSS, which
// `serve --replicas`' primary, --help and --version do not need.
const COMMANDS: Record<string, Command> = {
  serve,
  validate: async (argv) => (await import('./validate.js')).validate(argv),
  graph: async (argv) => (await import('./graph.js')).graph(argv),
  'new-model': async (argv) => (await import('./new-model.js')).newModel(argv),
  'run-model': async (argv) => (await import('./run-model.js')).runModel(argv),
  perf: async (argv) => (await import('./perf.js')).perf(argv),
  inspect: async (argv) => (await import('./inspect.js')).inspect(argv),
  replay: async (argv) => (await import('./replay.js')).replay(argv),
};

/** Entry point; returns the exit code. Errors print one clear line, never a stack. */
export async function main(argv: readonly string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (!cmd || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    // Asked-for help goes to stdout; help shown because the command was missing is a usage error.
    (cmd ? process.stdout : process.stderr).write(HELP);
    return cmd ? 0 : 2;
  }
  // tritonserver has no --version (its version is in the server metadata); ours prints package.json's.
  if (cmd === '--version') {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  // tritonserver habit: `tributary --model-repository=...` means serve.
  const run = COMMANDS[cmd] ?? (cmd.startsWith('--') ? () => serve(argv) : undefined);
  if (!run) {
    process.stderr.write(`tributary: unknown command '${cmd}'\n\n${HELP}`);
    return 2;
  }
  try {
    return await run(rest);
  } catch (e) {
    const err = toTributaryError(e);
    process.stderr.write(`error: ${err.message}\n`);
    // Exit 2 = the command line is wrong (bad flag or value, missing repository directory).
    return err.kind === 'INVALID_ARG' || Errors.repositoryNotFound.is(err) ? 2 : 1;
  }
}
