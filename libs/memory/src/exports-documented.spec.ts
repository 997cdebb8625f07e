import { join } from 'node:path';
import ts from 'typescript';

const SRC = __dirname;

/** The source of every entry point in the package's exports map. */
const ENTRY_POINTS = [
  'index.ts',
  ...[
    'postgres',
    'nats',
    'health',
    'rag',
    'observability',
    'langchain',
    'ai-sdk',
    'openai',
    'openai-agents',
    'mcp',
    'langgraph',
  ].map((d) => `${d}/index.ts`),
];

/** `entry: name` of each export of the entry points that has no doc comment. */
function undocumentedExports(): string[] {
  const program = ts.createProgram(
    ENTRY_POINTS.map((entry) => join(SRC, entry)),
    {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.CommonJS,
      experimentalDecorators: true,
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      types: ['node'],
    },
  );
  const checker = program.getTypeChecker();
  const missing: string[] = [];
  for (const entry of ENTRY_POINTS) {
    const file = program.getSourceFile(join(SRC, entry))!;
    const module = checker.getSymbolAtLocation(file)!;
    for (const exported of checker.getExportsOfModule(module)) {
      const symbol =
        exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const documented =
        symbol.getDocumentationComment(checker).length > 0 ||
        symbol.getJsDocTags(checker).length > 0;
      if (!documented) missing.push(`${entry}: ${exported.name}`);
    }
  }
  return missing;
}

describe('the package documents its exports', () => {
  it('every export of every entry point has a doc comment', () => {
    expect(undocumentedExports()).toEqual([]);
  }, 120_000);
});
