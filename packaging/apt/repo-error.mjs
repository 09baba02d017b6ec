// What `npm run apt-repo` says instead of a stack trace: one line naming the flag or the file.
export class RepoError extends Error {
  /** 2 for a usage error (a flag missing or malformed), 1 for anything else, as `npm run deb` does. */
  constructor(message, exitCode = 1) {
    super(message);
    this.name = 'RepoError';
    this.exitCode = exitCode;
  }
}
