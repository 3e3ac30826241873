"""``ray start``'s output read and judged (grader.parsers.ray_start, grader.judges.ray.summarise_ray_start).

The samples are written here as Ray 2.x prints them (python/ray/scripts/scripts.py: ``Local node IP``, ``Ray runtime
started.``, the head's next steps; python/ray/_private/services.py: ``Unable to connect to GCS (ray head) at``; the
raylet's ``global_state_accessor.cc`` retry line as the field corpus's i028 shows it, vllm-project/vllm#13367) with
the addresses of this course's QSFP link. Real pastes are in the field corpus (i028, class l)."""

from __future__ import annotations

import pytest

from grader.explain import explain
from grader.parsers import ParseError
from grader.parsers.ray_start import parse_ray_start
from tests.conftest import levels, messages

HEAD = """$ ray start --head --node-ip-address=192.168.100.10 --port=6379
Usage stats collection is disabled.

Local node IP: 192.168.100.10

--------------------
Ray runtime started.
--------------------

Next steps
  To add another node to this Ray cluster, run
    ray start --address='192.168.100.10:6379'

  To connect to this Ray cluster:
    import ray
    ray.init(_node_ip_address='192.168.100.10')

  To terminate the Ray runtime, run
    ray stop

  To view the status of the cluster, use
    ray status
"""

WORKER_BLOCK = """2026-11-29 17:50:02,114 INFO scripts.py:1047 -- Local node IP: 192.168.100.11
[2026-11-29 17:50:04,551 W 1 1] global_state_accessor.cc:429: Retrying to get node with node ID 91bf9af69c7ffeb8
[2026-11-29 17:50:05,552 W 1 1] global_state_accessor.cc:429: Retrying to get node with node ID 91bf9af69c7ffeb8
2026-11-29 17:50:06,461 SUCC scripts.py:1063 -- --------------------
2026-11-29 17:50:06,461 SUCC scripts.py:1064 -- Ray runtime started.
2026-11-29 17:50:06,461 SUCC scripts.py:1065 -- --------------------
2026-11-29 17:50:06,461 INFO scripts.py:1067 -- To terminate the Ray runtime, run
2026-11-29 17:50:06,461 INFO scripts.py:1068 --   ray stop
2026-11-29 17:50:06,461 INFO scripts.py:1076 -- --block
2026-11-29 17:50:06,461 INFO scripts.py:1077 -- This command will now block forever until terminated by a signal.
"""

NO_GCS = """$ ray start --address=192.168.100.10:6379
Local node IP: 192.168.100.11
ConnectionError: Unable to connect to GCS (ray head) at 192.168.100.10:6379. Check that (1) Ray with matching \
version started successfully at the specified address, (2) this node can reach the specified address, and (3) there \
is no firewall setting preventing access.
"""


def test_a_head_start_names_its_ip_and_the_join_command():
    rs = parse_ray_start(HEAD)
    assert (rs.local_ip, rs.started, rs.head, rs.join_address) == ("192.168.100.10", True, True, "192.168.100.10:6379")
    [s] = explain(HEAD, host="spark")
    assert s.kind == "ray-start" and not {"warn", "fail"} & set(levels(s))
    assert "Ray runtime started (head) on node IP 192.168.100.10" in messages(s, "ok")
    assert "ray start --address='192.168.100.10:6379'" in messages(s, "ok")
    assert "QSFP twin address" in messages(s, "info")  # on a Spark: the node IP must be the QSFP address
    [other] = explain(HEAD, host="other")
    assert "QSFP" not in messages(other)


def test_a_worker_in_a_container_that_retried_warns_and_started():
    rs = parse_ray_start(WORKER_BLOCK)
    assert (rs.local_ip, rs.started, rs.retries, rs.blocking, rs.head) == ("192.168.100.11", True, 2, True, None)
    [s] = explain(WORKER_BLOCK, host="spark")  # no prompt: the Ray CLI's logger lines tell the kind
    assert s.kind == "ray-start"
    assert "after 2 retries" in messages(s, "warn") and "it started in the end" in messages(s, "warn")
    assert "fail" not in levels(s)


def test_a_head_it_cannot_reach_fails_with_the_address():
    rs = parse_ray_start(NO_GCS)
    assert (rs.gcs_unreachable, rs.started) == ("192.168.100.10:6379", False)
    [s] = explain(NO_GCS, host="spark")
    assert "could not reach the head's GCS at 192.168.100.10:6379" in messages(s, "fail")
    assert "nc -zv 192.168.100.10 6379" in messages(s, "fail")


@pytest.mark.parametrize("text, needle, level", [
    ("ConnectionError: Ray is trying to start at 10.0.0.1:6379, but is already running at 10.0.0.1:6379. Please "
     "specify a different port using the `--port` flag of `ray start` command.\n", "Ray already runs here", "fail"),
    ("Local node IP: 10.0.0.2\nSome Ray subprocesses exited unexpectedly:\n  raylet [exit code=1]\n"
     "Remaining processes will be killed.\n", "raylet (exit code 1)", "fail"),
    ("Local node IP: 10.0.0.2\nThis node has an IP address of 10.0.0.2, and Ray expects this IP address to be either "
     "the GCS address or one of the Raylet addresses. Connected to GCS at 192.168.1.10 and found raylets at "
     "192.168.1.10 but none of these match this node's IP 10.0.0.2.\n",
     "(the GCS at 192.168.1.10 knows raylets at 192.168.1.10 only)", "fail"),
    ("Local node IP: 10.0.0.2\n[2024-08-07 10:14:35,261 I 7 7] global_state_accessor.cc:432: This node has an IP "
     "address of 10.0.0.2, but we cannot find a local Raylet with the same address.\n\n--------------------\nRay "
     "runtime started.\n--------------------\n", "not yet found a raylet at this node's address 10.0.0.2", "warn"),
    ("2022-02-05 16:39:15,662 ERROR gcs_utils.py:137 -- Failed to send request to gcs, reconnecting. Error "
     "<_InactiveRpcError of RPC that terminated with:\n        status = StatusCode.UNAVAILABLE\n",
     "Requests to the head's GCS failed (`Failed to send request to gcs` 1 time, gRPC UNAVAILABLE)", "fail"),
    ("Local node IP: 127.0.0.1\n\n--------------------\nRay runtime started.\n--------------------\n",
     "loopback address 127.0.0.1", "warn"),
])
def test_what_stops_or_misplaces_a_start(text, needle, level):
    [s] = explain(text, host="other")
    assert s.kind == "ray-start" and needle in messages(s, level)


def test_what_the_command_asked_is_compared_with_what_ray_did():
    """The command line says what was meant: an empty host (a variable that expanded to nothing), a node IP Ray did
    not keep, a loopback head address Ray replaced with this machine's own."""
    empty = "$ ray start --address=:6379 --block\nLocal node IP: 127.0.0.1\n[2025-07-23 10:05:49,679 W 5 5] " \
            "gcs_rpc_client.h:151: Failed to connect to GCS at address :6379 within 5 seconds.\n"
    [s] = explain(empty, host="other")
    assert "has no host (`--address=:6379`)" in messages(s, "fail") and "could not reach" not in messages(s)
    kept = HEAD.replace("--node-ip-address=192.168.100.10", "--node-ip-address=127.0.0.1")
    [s] = explain(kept, host="other")
    assert "`--node-ip-address=127.0.0.1` was asked for, but Ray took 192.168.100.10" in messages(s, "warn")
    loop = NO_GCS.replace("--address=192.168.100.10:6379", "--address 127.0.0.1:6379")
    [s] = explain(loop, host="other")
    assert "`--address=127.0.0.1:6379` names this machine itself" in messages(s, "info")


def test_rays_object_store_in_tmp_is_the_diagnosis_said_beside():
    text = WORKER_BLOCK + ("2026-11-29 17:50:02,301 WARNING services.py:2159 -- WARNING: The object store is using "
                           "/tmp instead of /dev/shm because /dev/shm has only 67108864 bytes available. This will "
                           "harm performance!\n")
    [s] = explain(text, host="spark")
    assert s.kind == "ray-start" and "Ray's object store could not fit in /dev/shm (67108864 bytes free" in \
        messages(s, "warn") and "--shm-size" in messages(s, "warn")


def test_ray_status_where_none_runs_fails_and_ray_stop_says_what_it_stopped():
    """ray#62883's paste (the corpus's l013): `ray status` finds no Ray, then `ray stop --force` stops 4 leftovers."""
    status, stop = explain("ConnectionError: Could not find any running Ray instance. Please specify the one to "
                           "connect to by setting the `--address` flag or `RAY_ADDRESS` environment variable.\n\n"
                           "Stopped all 4 Ray processes.\n", host="other")
    assert status.kind == "ray-status" and "No Ray runs here" in messages(status, "fail") and status.error is None
    assert stop.kind == "ray-start" and "`ray stop` stopped 4 Ray processes" in messages(stop, "info")
    [some] = explain("$ ray stop\nStopped only 2 out of 3 Ray processes within the grace period 16 seconds.\n")
    assert "`ray stop --force` ends them" in messages(some, "warn")
    assert parse_ray_start("Did not find any active Ray processes.\n").stopped == (0, 0)


def test_what_a_review_found_in_the_ray_start_reading_stays_mended():
    """helper-25's review: one retry is Ray polling while its raylet registers (info); a node IP typed as a variable
    is not compared with what Ray took; `ray start` printing nothing is no success; ssh's own forwarded-port
    `Address already in use` is not a server that failed to bind; a container stopped with `docker stop` (137)
    warns, a crash (139) fails."""
    one = WORKER_BLOCK.replace(WORKER_BLOCK.splitlines()[2] + "\n", "")
    [s] = explain(one, host="spark")
    assert "one retry is normal" in messages(s, "info") and "warn" not in levels(s)
    [s] = explain(HEAD.replace("--node-ip-address=192.168.100.10", "--node-ip-address=$VLLM_HOST_IP"), host="spark")
    assert "was asked for" not in messages(s) and "warn" not in levels(s)
    [s] = explain("$ ray start --head\n$ hostname\nspark-1\n", host="spark")[:1]
    assert s.error == "the command printed nothing"
    ssh = "$ ssh -N -L 8265:localhost:8265 spark-1\nbind [127.0.0.1]:8265: Address already in use\n"
    assert not [f for x in explain(ssh) for f in x.findings if f.level == "fail"]
    stopped = "abc123   ubuntu:24.04   \"sleep infinity\"   3 weeks ago   Exited (137) 3 weeks ago     idle\n"
    assert "A container was killed" in messages(explain(stopped)[0], "warn")
    assert "A container crashed" in messages(explain(stopped.replace("137", "139"))[0], "fail")
    [uvicorn] = explain("ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 8000): address "
                        "already in use\n")
    assert "('0.0.0.0', 8000)" in messages(uvicorn, "fail")


def test_not_ray_start_output_is_refused_with_what_was_expected():
    with pytest.raises(ParseError, match="Local node IP"):
        parse_ray_start("hello\nworld\n")


WORKER_TRACEBACK = """$ ray start --address='192.168.100.10:6379' --redis-password='5241590000000000'
Local node IP: 192.168.100.11
Traceback (most recent call last):
  File "/usr/lib/python3/dist-packages/ray/_private/services.py", line 640, in wait_for_redis_to_start
    redis_client.client_list()
  File "/usr/lib/python3/dist-packages/redis/client.py", line 1194, in client_list
    return self.execute_command('CLIENT LIST')
redis.exceptions.ConnectionError: Error 113 connecting to 192.168.100.10:6379. No route to host.
"""


def test_a_traceback_in_rays_own_code_fails_with_the_step_that_raised():
    """ray#13928's shape (the field corpus's l018, cut before the exception line): a Python traceback whose last frame
    of Ray's is ``wait_for_redis_to_start`` is a start that could not reach the head's Redis (Ray before 1.11), a fail
    even after a head printed ``Ray runtime started.``; the exception line is quoted when the paste has it, and said
    missing when it does not. A traceback with no frame of Ray's still fails, without a cause."""
    rs = parse_ray_start(WORKER_TRACEBACK)
    assert rs.traceback == ("wait_for_redis_to_start", "redis.exceptions.ConnectionError: Error 113 connecting to "
                                                       "192.168.100.10:6379. No route to host.")
    (s,) = explain(WORKER_TRACEBACK)
    assert levels(s)[0] == "fail" and "Redis" in messages(s) and "No route to host" in messages(s) \
        and "at 192.168.100.10:6379 failed" in messages(s)
    cut = HEAD + WORKER_TRACEBACK.split("\n", 2)[2].rsplit("\n", 2)[0]  # a head's start, then the traceback, cut
    (s,) = explain(cut)
    assert "fail" in levels(s) and "the exception line is not in the paste" in messages(s)
    other = HEAD + 'Traceback (most recent call last):\n  File "x.py", line 3, in <module>\nValueError: bad\n'
    assert parse_ray_start(other).traceback == (None, "ValueError: bad")
    (s,) = explain(other)
    assert "fail" in levels(s) and "`ValueError: bad`" in messages(s) and "Redis" not in messages(s)
    assert parse_ray_start(HEAD).traceback is None
