import { describeVectorStoreConformance } from '@agent-memory/test-conformance';
import { InMemoryVectorStore } from './in-memory-vector.store';

describeVectorStoreConformance('in-memory', {
  create: (dimensions) => Promise.resolve(new InMemoryVectorStore(dimensions)),
});

describe('InMemoryVectorStore', () => {
  it('grows past its first allocation and compacts on delete', async () => {
    const store = new InMemoryVectorStore(2);
    const records = Array.from({ length: 300 }, (_, i) => ({
      id: `r${i}`,
      vector: [Math.cos(i / 50), Math.sin(i / 50)],
      session: i % 2 ? 'odd' : 'even',
      resource: null,
      cursor: i,
    }));
    await store.upsert(records);
    expect(store.size).toBe(300);
    await store.delete({ session: 'odd' });
    expect(store.size).toBe(150);
    const [hit] = await store.query([Math.cos(100 / 50), Math.sin(100 / 50)], 1);
    expect(hit).toMatchObject({ id: 'r100', cursor: 100 });
  });
});
