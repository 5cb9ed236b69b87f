// The browser tests' one assertion API: Vitest's jest-compatible `expect` (@vitest/expect on chai), as the Node tests use.
import * as chai from 'chai';
import {
  ASYMMETRIC_MATCHERS_OBJECT,
  GLOBAL_EXPECT,
  JestAsymmetricMatchers,
  JestChaiExpect,
  JestExtend,
  getState,
  setState,
  type ExpectStatic,
} from '@vitest/expect';

// The plugins Vitest installs (its `vitest` entry), less its snapshot and chai-style ones, which these tests do not use.
chai.use(JestExtend);
chai.use(JestChaiExpect);
chai.use(JestAsymmetricMatchers);

/** `expect(value, message)`: `message` leads the error when the expectation fails, before what was expected and got. */
export const expect = ((value: unknown, message?: string) => chai.expect(value, message)) as ExpectStatic;
Object.assign(expect, chai.expect);
Object.assign(expect, (globalThis as Record<symbol, unknown>)[ASYMMETRIC_MATCHERS_OBJECT]);
expect.getState = () => getState(expect);
expect.setState = (state) => setState(state, expect);
expect.extend = (matchers) =>
  (chai.expect as unknown as { extend: (e: ExpectStatic, m: typeof matchers) => void }).extend(expect, matchers);
setState({ assertionCalls: 0, isExpectingAssertions: false, expectedAssertionsNumber: null }, expect);
// The instance @vitest/expect's asymmetric matchers and `.extend` read their state from when they are given none.
Object.defineProperty(globalThis, GLOBAL_EXPECT, { value: expect, writable: true, configurable: true });
