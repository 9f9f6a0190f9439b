// The part of madge's API the structure test uses (the package ships no types).
declare module 'madge' {
  interface MadgeResult {
    /** Each cycle as the list of files it runs through. */
    circular(): string[][]
    /** Each file with the files it imports, relative to `baseDir`. */
    obj(): Record<string, string[]>
  }
  function madge(paths: string | string[], config?: { fileExtensions?: string[]; baseDir?: string }): Promise<MadgeResult>
  export default madge
}
