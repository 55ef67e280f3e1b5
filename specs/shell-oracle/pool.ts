/** Runs async jobs with a bounded number at a time, keeping each job's promise. */
export function pooled<T, R>(items: readonly T[], limit: number, job: (item: T) => Promise<R>): Promise<R>[] {
  let next = 0;
  const results: Promise<R>[] = [];
  const resolvers: { resolve: (r: R) => void; reject: (e: unknown) => void }[] = [];
  for (let i = 0; i < items.length; i++) {
    results.push(new Promise<R>((resolve, reject) => resolvers.push({ resolve, reject })));
    // An unawaited rejection is reported by the test that awaits it, not as an unhandled one.
    results[i]!.catch(() => undefined);
  }
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      try {
        resolvers[i]!.resolve(await job(items[i]!));
      } catch (e) {
        resolvers[i]!.reject(e);
      }
    }
  };
  for (let w = 0; w < Math.min(limit, items.length); w++) void worker();
  return results;
}
