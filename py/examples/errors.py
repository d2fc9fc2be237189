import os

import leaseq

client = leaseq.Client(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379"))
queue = client.queue("{emails}")
try:
    queue.lease(ttl=-1.0)
except ValueError as err:  # leaseq.InvalidArgumentError
    assert isinstance(err, leaseq.InvalidArgumentError)
    # INVALID_ARGUMENT ttl invalid argument `ttl`: ...
    print(err.code, err.argument, err)
try:
    queue.add(leaseq.Item(b"x", priority=5000))  # checked before anything is sent
except leaseq.InvalidArgumentError as err:
    print(err.argument)  # priority
client.close()
try:
    queue.count("waiting")
except leaseq.ClosedError as err:
    print(err.code)  # CLOSED
