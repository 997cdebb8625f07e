/**
 * Lints source texts as if they were files of the repository (they need not exist) with the
 * repository's ESLint config, in a process of its own: ESLint loads that config as an ECMAScript
 * module, which jest's module sandbox cannot. Reads `LintInput[]` as JSON on stdin and prints one
 * JSON line, a `LintOutput[]` in the same order.
 */
import { ESLint } from 'eslint';
import { join } from 'node:path';

export interface LintInput {
  /** Where the text stands, relative to the repository's root (it decides the rules). */
  filePath: string;
  code: string;
}

export interface LintOutput {
  filePath: string;
  /** The problems found, each with its 1-based line and rule (null for a parse error). */
  messages: { line: number; ruleId: string | null; message: string }[];
}

async function main(): Promise<void> {
  let stdin = '';
  for await (const chunk of process.stdin) stdin += chunk;
  const inputs = JSON.parse(stdin) as LintInput[];
  const root = join(__dirname, '..', '..');
  const eslint = new ESLint({ cwd: root });
  const outputs: LintOutput[] = [];
  for (const { filePath, code } of inputs) {
    const [result] = await eslint.lintText(code, { filePath: join(root, filePath) });
    outputs.push({
      filePath,
      messages: result!.messages.map(({ line, ruleId, message }) => ({ line, ruleId, message })),
    });
  }
  process.stdout.write(`${JSON.stringify(outputs)}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
