// Mocha's globals as @web/test-runner provides them in the browser test files.
declare function describe(name: string, body: () => void): void;
declare function it(name: string, body: () => void | Promise<void>): void;
