#!/usr/bin/env node
'use strict'
// Packs the npm packages in napi-rs's layout from a built addon:
//   - `leaseq`: the JavaScript layer and its types, no install script, with the platform
//     package as an optional dependency;
//   - `leaseq-<platform>` (e.g. leaseq-linux-x64-gnu): the prebuilt addon,
//     leaseq.<platform>.node, with `os`, `cpu` and `libc` so npm installs only the matching one.
//
//   node scripts/package.js --addon path/to/libleaseq_node.so --out dir [--platform linux-x64-gnu]
//
// Writes dir/leaseq-<version>.tgz and dir/leaseq-<platform>-<version>.tgz. The version is the
// workspace's (Cargo.toml); node/package.json must agree (scripts/version.sh check).
// scripts/dist.sh runs this for `make dist`; node/test.sh runs it on the debug addon. The
// release workflow builds the other platforms' packages with napi-rs's own commands instead.

const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const packageRoot = path.resolve(__dirname, '..')
const repo = path.resolve(packageRoot, '..')

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`)
  if (i >= 0 && i + 1 < process.argv.length) return process.argv[i + 1]
  if (fallback !== undefined) return fallback
  console.error(`usage: node scripts/package.js --addon FILE --out DIR [--platform P]`)
  process.exit(2)
}

/** napi-rs's platform names and the package.json fields that restrict each to its platform. */
const PLATFORMS = {
  'linux-x64-gnu': { os: ['linux'], cpu: ['x64'], libc: ['glibc'] },
  'linux-x64-musl': { os: ['linux'], cpu: ['x64'], libc: ['musl'] },
  'linux-arm64-gnu': { os: ['linux'], cpu: ['arm64'], libc: ['glibc'] },
  'linux-arm64-musl': { os: ['linux'], cpu: ['arm64'], libc: ['musl'] },
  'darwin-x64': { os: ['darwin'], cpu: ['x64'] },
  'darwin-arm64': { os: ['darwin'], cpu: ['arm64'] },
  'win32-x64-msvc': { os: ['win32'], cpu: ['x64'] },
}

const addon = path.resolve(arg('addon'))
const out = path.resolve(arg('out'))
const platform = arg('platform', 'linux-x64-gnu')
if (!PLATFORMS[platform]) {
  console.error(`package.js: unknown platform ${platform} (known: ${Object.keys(PLATFORMS).join(', ')})`)
  process.exit(2)
}

const cargoToml = fs.readFileSync(path.join(repo, 'Cargo.toml'), 'utf8')
const workspacePackage = /^\[workspace\.package\]$([\s\S]*?)(^\[|$(?![\s\S]))/m.exec(cargoToml)
const versionLine = workspacePackage && /^version\s*=\s*"([^"]+)"/m.exec(workspacePackage[1])
if (!versionLine) {
  console.error('package.js: no version under [workspace.package] in Cargo.toml')
  process.exit(1)
}
const version = versionLine[1]
const source = JSON.parse(fs.readFileSync(path.join(packageRoot, 'package.json'), 'utf8'))
if (source.version !== version) {
  console.error(
    `package.js: node/package.json has ${source.version}, Cargo.toml ${version}: ` +
      `run scripts/version.sh set ${version}`,
  )
  process.exit(1)
}

const platformName = `${source.name}-${platform}`
const binary = `${source.napi.binaryName}.${platform}.node`
const common = {
  version,
  license: source.license,
  engines: source.engines,
}
if (source.repository) common.repository = source.repository

const staging = fs.mkdtempSync(path.join(os.tmpdir(), 'leaseq-npm-'))
process.on('exit', () => fs.rmSync(staging, { recursive: true, force: true }))
fs.mkdirSync(out, { recursive: true })

function writeJson(file, value) {
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + '\n')
}

function pack(dir) {
  const json = execFileSync('npm', ['pack', '--json', '--pack-destination', out, '--loglevel=error'], {
    cwd: dir,
    encoding: 'utf8',
  })
  const [{ filename }] = JSON.parse(json)
  console.log(path.join(out, filename))
}

// The platform package: the addon alone.
const platformDir = path.join(staging, platform)
fs.mkdirSync(platformDir)
fs.copyFileSync(addon, path.join(platformDir, binary))
writeJson(path.join(platformDir, 'package.json'), {
  name: platformName,
  ...common,
  description: `The ${platform} binary of leaseq's Node addon (installed by the leaseq package)`,
  ...PLATFORMS[platform],
  main: binary,
  files: [binary],
})
fs.writeFileSync(
  path.join(platformDir, 'README.md'),
  `# ${platformName}\n\nThe prebuilt native addon of the npm package \`leaseq\` ` +
    `for ${platform}. Install \`leaseq\`, not this package: npm adds this one where it fits. ` +
    `\`leaseq\`'s README says how to use it.\n`,
)
pack(platformDir)

// The main package: what `files` lists; no scripts at all, so nothing runs at install.
const mainDir = path.join(staging, 'leaseq')
fs.mkdirSync(mainDir)
const files = source.files
for (const f of files) fs.cpSync(path.join(packageRoot, f), path.join(mainDir, f), { recursive: true })
// The package's own README (a first example and where the documentation is), not the repository's.
fs.copyFileSync(path.join(packageRoot, 'README.md'), path.join(mainDir, 'README.md'))
const main = { ...source, ...common, files }
delete main.scripts
delete main.devDependencies
delete main.overrides
main.optionalDependencies = { [platformName]: version }
writeJson(path.join(mainDir, 'package.json'), main)
pack(mainDir)
