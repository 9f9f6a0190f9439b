import assert from 'node:assert/strict'
import { QueryError } from '../../queries/core/errors'
import { FairScheduler, KeptTurn, type Release } from '../../queries/run/scheduler'

/** A clock that never moves: every statement takes no engine time, so turns go by who was served earliest. */
const still = () => 0

describe('the fair engine scheduler', () => {
  it('admits up to the in-flight limit at once, then queues', async () => {
    const scheduler = new FairScheduler({ maxInFlight: 2, maxQueued: 10, clock: still })
    await scheduler.admit('a')
    await scheduler.admit('a')
    let third = false
    void scheduler.admit('a').then(() => (third = true))
    await Promise.resolve()
    assert.equal(third, false)
    assert.deepEqual([scheduler.inFlight(), scheduler.queueDepth()], [2, 1])
  })

  it('gives the next turn to the client with the fewest requests running or waiting, each client in its own order', async () => {
    const scheduler = new FairScheduler({ maxInFlight: 1, maxQueued: 10, clock: still })
    const first = await scheduler.admit('greedy')
    const order: string[] = []
    const releases: Release[] = [first]
    const wait = (client: string, n: number) =>
      scheduler.admit(client).then((release) => {
        order.push(`${client}${n}`)
        releases.push(release)
      })
    const turns = [wait('greedy', 1), wait('greedy', 2), wait('greedy', 3), wait('b', 1), wait('c', 1), wait('b', 2)]
    for (let i = 0; i < turns.length; i += 1) {
      ;(releases.shift() as Release)()
      await new Promise((resolve) => setImmediate(resolve))
      assert.equal(order.length, i + 1, 'one turn per release')
    }
    assert.deepEqual(order, ['c1', 'b1', 'b2', 'greedy1', 'greedy2', 'greedy3'])
  })

  it('counts a joined statement by the requests it answers, as many as have joined it when turns are given', async () => {
    const scheduler = new FairScheduler({ maxInFlight: 1, maxQueued: 10, clock: still })
    const release = await scheduler.admit('x')
    const order: string[] = []
    let members = 1
    const joined = scheduler
      .admit('dashboard', undefined, undefined, () => members)
      .then((ends) => {
        order.push('dashboard')
        return ends
      })
    const asks = [1, 2].map((n) =>
      scheduler.admit('single').then((ends) => {
        order.push(`single${n}`)
        return ends
      }),
    )
    members = 3
    release()
    ;(await asks[0])()
    ;(await asks[1])()
    await joined
    assert.deepEqual(order, ['single1', 'single2', 'dashboard'], 'three requests joined in one statement wait behind a client with two')
  })

  it('refuses with overloaded when the queue is full', async () => {
    const scheduler = new FairScheduler({ maxInFlight: 1, maxQueued: 1 })
    await scheduler.admit('a')
    void scheduler.admit('a')
    await assert.rejects(scheduler.admit('b'), (error: unknown) => error instanceof QueryError && error.code === 'overloaded')
  })

  it('remembers a client that had nothing running or waiting for a moment: it does not start again as never served', async () => {
    const scheduler = new FairScheduler({ maxInFlight: 1, maxQueued: 5, clock: still })
    ;(await scheduler.admit('b'))()
    ;(await scheduler.admit('a'))()
    const c = await scheduler.admit('c')
    const order: string[] = []
    const waiting = [scheduler.admit('a').then(() => order.push('a')), scheduler.admit('b').then(() => order.push('b'))]
    c()
    await Promise.race(waiting)
    assert.deepEqual(order, ['b'], 'a, served after b, left and came back: still served after b, though it asked first')
  })

  it('drops a waiting statement whose request goes away, and a release counts once', async () => {
    const scheduler = new FairScheduler({ maxInFlight: 1, maxQueued: 5 })
    const release = await scheduler.admit('a')
    const abort = new AbortController()
    const leaving = scheduler.admit('b', abort.signal)
    const staying = scheduler.admit('c')
    abort.abort(new Error('gone'))
    await assert.rejects(leaving, /gone/)
    assert.equal(scheduler.queueDepth(), 1)
    release()
    release()
    await staying
    assert.deepEqual([scheduler.inFlight(), scheduler.queueDepth()], [1, 0])
  })
})

describe('turns by engine time used', () => {
  it('serves a client whose statements are light before one whose statements are heavy, while both keep some waiting', async () => {
    let now = 0
    const scheduler = new FairScheduler({ maxInFlight: 1, maxQueued: 10, clock: () => now })
    const order: string[] = []
    let release = await scheduler.admit('heavy')
    order.push('heavy0')
    const turns: Promise<void>[] = []
    const ask = (client: string, n: number, ms: number) =>
      turns.push(
        scheduler.admit(client).then((ends) => {
          order.push(`${client}${n}`)
          release = () => {
            now += ms
            ends()
          }
        }),
      )
    ask('heavy', 1, 1000)
    ask('heavy', 2, 1000)
    ask('light', 1, 10)
    ask('light', 2, 10)
    now += 1000
    for (let turn = 0; turn < 4; turn += 1) {
      release()
      await new Promise((resolve) => setImmediate(resolve))
    }
    await Promise.all(turns)
    assert.deepEqual(
      order,
      ['heavy0', 'light1', 'light2', 'heavy1', 'heavy2'],
      'by turns alone it would be heavy0, light1, heavy1, light2, heavy2',
    )
  })

  it('starts a client that comes at the least engine time a present client has used, not at zero', async () => {
    let now = 0
    const scheduler = new FairScheduler({ maxInFlight: 1, maxQueued: 10, clock: () => now })
    const order: string[] = []
    let release = await scheduler.admit('old')
    const turns: Promise<void>[] = []
    const asked = { old: 0, new: 0 }
    const last = { old: 2, new: 3 }
    // Each client asks its next statement as one starts, so each has one waiting whenever a turn is given.
    const ask = (client: 'old' | 'new') => {
      const n = (asked[client] += 1)
      turns.push(
        scheduler.admit(client).then((ends) => {
          order.push(`${client}${n}`)
          if (n < last[client]) ask(client)
          release = () => {
            now += 1000
            ends()
          }
        }),
      )
    }
    ask('old')
    now += 3000
    ask('new')
    for (let turn = 0; turn < 5; turn += 1) {
      release()
      await new Promise((resolve) => setImmediate(resolve))
    }
    await Promise.all(turns)
    assert.deepEqual(order, ['new1', 'old1', 'new2', 'old2', 'new3'], 'from zero, new would take three turns before old took one')
  })
})

describe('engine time kept across a departure', () => {
  it("keeps a busy client's use while it has nothing waiting for a moment, so a light client still goes first", async () => {
    let now = 0
    const scheduler = new FairScheduler({ maxInFlight: 1, maxQueued: 10, clock: () => now })
    const order: string[] = []
    const heavy = await scheduler.admit('heavy')
    now += 5000
    heavy()
    const light = await scheduler.admit('light')
    const waiting = [scheduler.admit('heavy').then(() => order.push('heavy')), scheduler.admit('light').then(() => order.push('light'))]
    now += 10
    light()
    await Promise.race(waiting)
    assert.deepEqual(order, ['light'], 'heavy left with 5 s used and came back with them: light, at 10 ms, goes first')
  })
})

describe("each client's share of the engine queue", () => {
  /** What became of an admission by the next turn of the event loop: its error's code, admitted, or waiting. */
  const outcome = (admission: Promise<Release>) =>
    Promise.race([
      admission.then(
        () => 'admitted',
        (error: unknown) => (error instanceof QueryError ? error.code : String(error)),
      ),
      new Promise<string>((resolve) => setImmediate(() => resolve('waiting'))),
    ])

  it('refuses a client its statements past its share with too_many_queries, and another client still gets in', async () => {
    const scheduler = new FairScheduler({ maxInFlight: 1, maxQueued: 8 })
    await scheduler.admit('hog')
    for (let n = 0; n < 4; n += 1) assert.equal(await outcome(scheduler.admit('hog')), 'waiting')
    assert.equal(scheduler.queueDepth(), 4, 'alone, a client may fill half the queue')
    assert.equal(await outcome(scheduler.admit('hog')), 'too_many_queries')
    assert.equal(await outcome(scheduler.admit('other')), 'waiting', 'the other client is queued, not refused')
  })

  it('shrinks the share as more clients wait, and leaves room for one more client', async () => {
    const scheduler = new FairScheduler({ maxInFlight: 1, maxQueued: 12 })
    await scheduler.admit('running')
    const queue = async (client: string, n: number) => {
      for (let i = 0; i < n; i += 1) assert.equal(await outcome(scheduler.admit(client)), 'waiting', `${client} ${i + 1}`)
    }
    await queue('a', 4)
    await queue('b', 4)
    assert.equal(scheduler.queueDepth(), 8, 'two clients waiting: a third of the queue each')
    assert.deepEqual([await outcome(scheduler.admit('a')), await outcome(scheduler.admit('b'))], ['too_many_queries', 'too_many_queries'])
    await queue('c', 3)
    assert.equal(await outcome(scheduler.admit('c')), 'too_many_queries', 'three clients: a quarter each')
    await queue('d', 1)
    assert.equal(scheduler.queueDepth(), 12, 'a fourth client still got in')
    assert.equal(await outcome(scheduler.admit('e')), 'overloaded')
  })

  it('counts a share by statements waiting, not running: a client whose statements start may queue again', async () => {
    const scheduler = new FairScheduler({ maxInFlight: 1, maxQueued: 4 })
    const first = await scheduler.admit('a')
    const second = scheduler.admit('a')
    assert.equal(await outcome(scheduler.admit('a')), 'waiting')
    assert.equal(await outcome(scheduler.admit('a')), 'too_many_queries')
    first()
    await second
    assert.equal(await outcome(scheduler.admit('a')), 'waiting', 'the started statement left its place in the share')
  })
})

describe("a request's kept turn", () => {
  const tick = () => new Promise((resolve) => setImmediate(resolve))

  it('keeps the slot a statement frees for the same request, ahead of waiting clients, until the request ends', async () => {
    const scheduler = new FairScheduler({ maxInFlight: 1, maxQueued: 8 })
    const kept = new KeptTurn()
    const started: string[] = []
    const check = await scheduler.admit('question', undefined, kept)
    const others = [scheduler.admit('other').then(() => started.push('other'))]
    check()
    await tick()
    assert.deepEqual([started, scheduler.inFlight()], [[], 1], 'the freed slot is kept, not given to the waiting client')
    const statement = await scheduler.admit('question', undefined, kept)
    assert.equal(scheduler.inFlight(), 1, 'the statement took the kept slot, not a second one')
    statement()
    await tick()
    assert.deepEqual(started, [])
    kept.end()
    await Promise.all(others)
    assert.deepEqual([started, scheduler.inFlight()], [['other'], 1])
  })

  it('gives the kept slot up when the request lets it go, and keeps none after its end', async () => {
    const scheduler = new FairScheduler({ maxInFlight: 1, maxQueued: 8 })
    const kept = new KeptTurn()
    ;(await scheduler.admit('question', undefined, kept))()
    const waiting = scheduler.admit('other')
    kept.letGo()
    const release = await waiting
    kept.end()
    release()
    assert.deepEqual([scheduler.inFlight(), scheduler.queueDepth()], [0, 0])
    ;(await scheduler.admit('question', undefined, kept))()
    assert.equal(scheduler.inFlight(), 0, 'an ended turn keeps nothing')
  })

  it('lets a slot kept in one queue go when the next statement asks another queue, or gives up', async () => {
    const data = new FairScheduler({ maxInFlight: 1, maxQueued: 8 })
    const bounded = new FairScheduler({ maxInFlight: 1, maxQueued: 8 })
    const kept = new KeptTurn()
    ;(await data.admit('question', undefined, kept))()
    assert.equal(data.inFlight(), 1)
    const other = await bounded.admit('question', undefined, kept)
    assert.deepEqual([data.inFlight(), bounded.inFlight()], [0, 1], 'the data slot was let go')
    other()
    const abort = new AbortController()
    abort.abort(new Error('gone'))
    await assert.rejects(bounded.admit('question', abort.signal, kept), /gone/)
    assert.equal(bounded.inFlight(), 0, 'a request gone away keeps no slot')
  })
})
