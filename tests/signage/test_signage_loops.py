"""start_eagerly: a sign's frame written at once when the socket takes it, in a task when it must wait."""

from __future__ import annotations

import asyncio
import inspect
import logging

from signage import loops
from signage.loops import start_eagerly


async def test_a_coroutine_that_need_not_wait_runs_to_its_end_at_once_without_a_task() -> None:
    written: list[str] = []

    async def write(text: str) -> None:
        written.append(text)

    tasks = len(asyncio.all_tasks())
    start_eagerly(write("a"))
    start_eagerly(write("b"))
    assert written == ["a", "b"]
    assert len(asyncio.all_tasks()) == tasks
    assert not loops._resumed


async def test_a_coroutine_that_waits_goes_on_in_a_task_in_order(caplog) -> None:
    caplog.set_level(logging.DEBUG, logger="signage.loops")
    writable = asyncio.Event()
    written: list[str] = []

    async def write(text: str) -> None:
        written.append(f"{text} started")
        await writable.wait()
        await asyncio.sleep(0)
        written.append(f"{text} written")

    start_eagerly(write("a"))
    start_eagerly(write("b"))
    assert len(loops._resumed) == 2
    for _ in range(3):  # the tasks wait where the coroutines waited
        await asyncio.sleep(0)
    assert written == ["a started", "b started"]
    writable.set()
    while loops._resumed:
        await asyncio.sleep(0)
    assert written == ["a started", "b started", "a written", "b written"]
    assert not caplog.records


async def test_failures_are_logged_not_raised(caplog) -> None:
    failed = asyncio.get_running_loop().create_future()

    async def fails_at_once() -> None:
        raise ConnectionResetError("gone")

    async def fails_after_waiting() -> None:
        await failed

    caplog.set_level(logging.DEBUG, logger="signage.loops")
    start_eagerly(fails_at_once())
    start_eagerly(fails_after_waiting())
    failed.set_exception(BrokenPipeError("gone too"))
    while loops._resumed:
        await asyncio.sleep(0)
    assert [type(record.exc_info[1]) for record in caplog.records] == [ConnectionResetError, BrokenPipeError]


async def test_cancelling_the_task_cancels_the_coroutine_where_it_waits() -> None:
    seen: list[str] = []

    async def write() -> None:
        try:
            await asyncio.get_running_loop().create_future()
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise

    start_eagerly(write())
    (task,) = loops._resumed
    await asyncio.sleep(0)  # the task waits where the coroutine waited
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert seen == ["cancelled"]
    assert task.cancelled()


async def test_a_future_that_fails_after_the_wait_began_is_read_by_the_coroutine() -> None:
    future = asyncio.get_running_loop().create_future()
    seen: list[str] = []

    async def write() -> None:
        try:
            await future
        except BrokenPipeError as error:
            seen.append(str(error))

    start_eagerly(write())
    (task,) = loops._resumed
    await asyncio.sleep(0)
    future.set_exception(BrokenPipeError("socket gone"))
    await asyncio.gather(task)
    assert seen == ["socket gone"]
    assert not task.cancelled()


async def test_a_future_already_done_when_the_task_is_cancelled_gets_the_cancellation_thrown_in() -> None:
    future = asyncio.get_running_loop().create_future()
    seen: list[str] = []

    async def write() -> None:
        try:
            await future
            seen.append("resumed")
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise

    start_eagerly(write())
    (task,) = loops._resumed
    await asyncio.sleep(0)
    future.set_result(None)
    task.cancel()  # the future is done: the cancellation cannot travel through it
    await asyncio.gather(task, return_exceptions=True)
    assert seen == ["cancelled"]
    assert task.cancelled()
    assert future.result() is None


def test_the_resuming_relies_on_no_private_asyncio_attribute() -> None:
    source = inspect.getsource(loops)
    assert "_asyncio_future_blocking" not in source
