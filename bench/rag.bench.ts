/**
 * Semantic recall (`npm run bench rag`):
 * - nearest-neighbour queries (top 10) on 10k and 100k synthetic, clustered vectors of 128
 *   dimensions: `InMemoryVectorStore` (exact scan) vs `PgVectorStore` (pgvector HNSW, ef_search
 *   100), with pgvector's recall@10 against the exact answer;
 * - the offline `UniversalSentenceEmbedder`'s throughput (messages/s) on the labelled set;
 * - what recall adds to `retrieve(query)` with 100k vectors in the store: a session of 200
 *   messages with a snapshot (tail 20), `retrieve()` without a query (the bare baseline) vs
 *   `retrieve(query)` with session-scope recall, with the hashed embedder so the model's time
 *   (one query embedding, measured above) is left out.
 * Everything in PostgreSQL lives in a schema of its own, dropped afterwards.
 */
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { assistantMessage, simpleBackend, userMessage } from '@agent-memory/memory';
import {
  HashedNgramEmbedder,
  InMemoryVectorStore,
  PgVectorStore,
  UniversalSentenceEmbedder,
  withRecall,
  type VectorRecord,
  type VectorStore,
} from '@agent-memory/memory/rag';
import { loadLabelledRecallSet } from '../test/support/recall-quality';
import { benchSize, QUICK } from './bench-size';
import { measure, ratio, type BenchResult, type BenchSuite } from './harness';

const DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const DIMENSIONS = 128;
const SIZES = (process.env.BENCH_RAG_SIZES ?? (QUICK ? '2000' : '10000,100000'))
  .split(',')
  .map(Number);
const QUERIES = benchSize(100, 20);
const K = 10;

/** A seeded PRNG (mulberry32), so every run measures the same data. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` vectors around 200 random centres (texts embed in clusters, not uniformly). */
function clusteredVectors(count: number, seed: number): number[][] {
  const random = prng(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
  const centres = Array.from({ length: 200 }, () => Array.from({ length: DIMENSIONS }, gauss));
  return Array.from({ length: count }, () => {
    const centre = centres[Math.floor(random() * centres.length)]!;
    return centre.map((x) => x + 0.6 * gauss());
  });
}

async function loadPg(
  dataSource: DataSource,
  table: string,
  records: VectorRecord[],
): Promise<{ store: PgVectorStore; loadS: number; indexS: number }> {
  const store = await PgVectorStore.open(dataSource, { dimensions: DIMENSIONS, table });
  const base = table.split('.')[1]!;
  const qualified = `"${table.split('.')[0]}"."${base}"`;
  // Bulk load without the index, then build it once (what a migration of existing data does).
  await dataSource.query(`DROP INDEX "${table.split('.')[0]}"."${base}_hnsw"`);
  let started = performance.now();
  for (let i = 0; i < records.length; i += 5000) await store.upsert(records.slice(i, i + 5000));
  const loadS = (performance.now() - started) / 1000;
  started = performance.now();
  await dataSource.transaction(async (m) => {
    await m.query(`SET LOCAL maintenance_work_mem = '256MB'`);
    await m.query(
      `CREATE INDEX "${base}_hnsw" ON ${qualified} USING hnsw (embedding vector_cosine_ops)`,
    );
  });
  await dataSource.query(`ANALYZE ${qualified}`);
  return { store, loadS, indexS: (performance.now() - started) / 1000 };
}

async function recallAt(
  k: number,
  approx: VectorStore,
  exact: VectorStore,
  queries: number[][],
): Promise<number> {
  let found = 0;
  for (const q of queries) {
    const truth = new Set((await exact.query(q, k)).map((h) => h.id));
    for (const hit of await approx.query(q, k)) if (truth.has(hit.id)) found++;
  }
  return found / (k * queries.length);
}

export const suite: BenchSuite = {
  name: 'Semantic recall',
  async run() {
    const results: BenchResult[] = [];
    const notes: string[] = [];
    const schema = `bench_rag_${process.pid}_${Date.now().toString(36)}`;
    const dataSource = new DataSource({ type: 'postgres', url: DATABASE_URL, poolSize: 4 });
    await dataSource.initialize();
    try {
      let big: { pg: PgVectorStore; memory: InMemoryVectorStore } | null = null;
      for (const size of SIZES) {
        const label = `${size / 1000}k`;
        const vectors = clusteredVectors(size, size);
        const records: VectorRecord[] = vectors.map((vector, i) => ({
          id: `v${i}`,
          vector,
          session: `bulk-${i % 1000}`,
          resource: null,
          cursor: i,
        }));
        const memory = new InMemoryVectorStore(DIMENSIONS);
        await memory.upsert(records);
        const {
          store: pg,
          loadS,
          indexS,
        } = await loadPg(dataSource, `${schema}.v${size}`, records);
        const random = prng(7);
        const queries = Array.from({ length: QUERIES }, () =>
          vectors[Math.floor(random() * size)]!.map((x) => x + 0.3 * (random() - 0.5)),
        );
        let q = 0;
        const memoryResult = await measure(
          `top-10 query, ${label} vectors`,
          'in-memory exact',
          () => memory.query(queries[q++ % QUERIES]!, K),
        );
        const pgResult = await measure(`top-10 query, ${label} vectors`, 'pgvector HNSW', () =>
          pg.query(queries[q++ % QUERIES]!, K),
        );
        results.push(memoryResult, pgResult);
        const recall = await recallAt(K, pg, memory, queries);
        notes.push(
          `${label}: pgvector recall@10 vs exact ${recall.toFixed(3)}; load ${loadS.toFixed(1)} s ` +
            `(${Math.round(size / loadS)} vectors/s), HNSW build ${indexS.toFixed(1)} s; ` +
            `HNSW is ${ratio(memoryResult.meanMs, pgResult.meanMs)} the speed of the exact scan`,
        );
        big = { pg, memory };
      }

      // Offline embedding throughput.
      const set = loadLabelledRecallSet(
        join(__dirname, '../test/fixtures/recall/labelled-recall.json'),
      );
      const texts = set.messages.slice(0, benchSize(64, 16)).map((m) => m.text);
      const offline = new UniversalSentenceEmbedder();
      let started = performance.now();
      await offline.load();
      const loadMs = performance.now() - started;
      await offline.embed(texts.slice(0, 8));
      started = performance.now();
      await offline.embed(texts);
      const perMessageMs = (performance.now() - started) / texts.length;
      results.push({
        case: 'embed one message (batches of 8)',
        subject: 'UniversalSentenceEmbedder',
        opsPerSec: 1000 / perMessageMs,
        meanMs: perMessageMs,
      });
      started = performance.now();
      await offline.embed(['what did I say about my car?']);
      const queryEmbedMs = performance.now() - started;
      notes.push(
        `offline embedder: model load ${Math.round(loadMs)} ms, ${(1000 / perMessageMs).toFixed(1)} messages/s, ` +
          `one query ${queryEmbedMs.toFixed(0)} ms`,
      );

      // What recall adds to retrieve, with the largest store behind it.
      if (big) {
        const hashed = new HashedNgramEmbedder({ dimensions: DIMENSIONS });
        for (const [name, store] of [
          ['pgvector', big.pg],
          ['in-memory', big.memory],
        ] as const) {
          const backend = withRecall(simpleBackend({ capacity: 1000 }), {
            embedder: hashed,
            store,
            catchUpOnStart: false,
          });
          const session = await backend.open(`bench-recall-${name}`);
          await session.save(
            Array.from({ length: 200 }, (_, i) =>
              i % 2 === 0
                ? userMessage(`question ${i}: how do I rotate the api key for service ${i}?`)
                : assistantMessage(
                    `answer ${i}: open settings, keys, rotate; service ${i} restarts`,
                  ),
            ),
          );
          await backend.recallIndexer.whenIdle();
          const { tail } = await session.loadSnapshot();
          await session.saveSnapshot({ summary: 'api keys' }, tail[179]!.cursor, null);
          const bare = await measure(
            `retrieve, ${SIZES.at(-1)! / 1000}k vectors (${name})`,
            'no query (bare)',
            () => session.retrieve(),
          );
          let i = 0;
          const withQuery = await measure(
            `retrieve, ${SIZES.at(-1)! / 1000}k vectors (${name})`,
            'with recall',
            () => session.retrieve(`rotate the key of service ${(i++ * 7) % 180}`),
          );
          results.push(bare, withQuery);
          notes.push(
            `recall adds ${(withQuery.meanMs - bare.meanMs).toFixed(2)} ms to retrieve (${name}, hashed query embedding; target < 10 ms + one query embedding)`,
          );
          await backend.recallIndexer.close();
        }
      }
    } finally {
      await dataSource.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await dataSource.destroy();
    }
    return { results, notes };
  },
};
