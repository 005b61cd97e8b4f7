"""The profile cache: size, TTL, invalidation, and no stale reads after a write."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.config import AgxSettings, ConfigError, Settings, StepanSettings, load_settings
from bot.wiring.memory import profile_cache
from pipeline.memory.profiles.cache import MAX_ENTRIES, TTL, CachedProfiles, ProfileCache
from pipeline.profiles import FarmProfile, UserProfile
from tests.fakes.memory_service import ManualClock


def _value(user_id: str, name: str | None = None) -> CachedProfiles:
    profile = UserProfile.default(user_id).model_copy(update={"name": name})
    return CachedProfiles(profile, FarmProfile.default(user_id))


def _put(cache: ProfileCache, user_id: str, name: str | None = None) -> bool:
    return cache.put(user_id, _value(user_id, name), cache.token())


def test_default_limits_fit_the_expected_active_farmers() -> None:
    # Not the seed's 200 (a fallback cache): at 100,000 farmers that missed on almost
    # every message (issue 17). The settings' defaults are the cache's own.
    assert MAX_ENTRIES == 10_000 and timedelta(minutes=30) == TTL
    fields = StepanSettings.model_fields
    assert fields["profile_cache_size"].default == MAX_ENTRIES
    assert fields["profile_cache_ttl_s"].default == TTL.total_seconds()


def test_size_and_ttl_come_from_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STEPAN_PROFILE_CACHE_SIZE", "3")
    monkeypatch.setenv("STEPAN_PROFILE_CACHE_TTL_S", "60")
    settings = Settings(stepan=StepanSettings(_env_file=None), agx=AgxSettings(_env_file=None))
    clock = ManualClock()
    cache = profile_cache(settings, clock=clock)
    for n in range(4):
        assert cache.write_through(f"tg:{n}", _value(f"tg:{n}"), cache.sequence())
    assert len(cache) == 3 and cache.get("tg:0") is None  # the size from the setting
    clock.advance(59)
    assert cache.get("tg:3") is not None
    clock.advance(1)
    assert cache.get("tg:3") is None  # the TTL from the setting
    assert cache.expire() == 2 and len(cache) == 0


@pytest.mark.parametrize("value", ["0", "-5", "many"])
def test_a_bad_cache_size_names_the_variable(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("STEPAN_PROFILE_CACHE_SIZE", value)
    with pytest.raises(ConfigError, match="STEPAN_PROFILE_CACHE_SIZE"):
        load_settings()


def test_a_written_through_entry_expires_and_is_not_served_stale() -> None:
    clock = ManualClock()
    cache = ProfileCache(ttl=timedelta(seconds=10), clock=clock)
    assert cache.write_through("tg:1", _value("tg:1", "v1"), cache.sequence())
    clock.advance(5)
    # A second write renews the entry's life from its own moment.
    assert cache.write_through("tg:1", _value("tg:1", "v2"), cache.sequence())
    clock.advance(9)
    cached = cache.get("tg:1")
    assert cached is not None and cached.profile.name == "v2"
    clock.advance(1)
    assert cache.get("tg:1") is None
    # After expiry a reader may store again (expiry is not a write mark).
    assert cache.put("tg:1", _value("tg:1", "v3"), cache.token())


def test_entry_lives_for_the_ttl_only() -> None:
    clock = ManualClock()
    cache = ProfileCache(clock=clock)
    assert _put(cache, "tg:1", "Іван")
    clock.advance(TTL.total_seconds() - 1)
    cached = cache.get("tg:1")
    assert cached is not None and cached.profile.name == "Іван"
    clock.advance(1)
    assert cache.get("tg:1") is None
    assert len(cache) == 0


def test_least_recently_used_entry_goes_first() -> None:
    cache = ProfileCache(max_entries=50, clock=ManualClock())
    for n in range(50):
        _put(cache, f"tg:{n}")
    assert cache.get("tg:0") is not None  # touched: now the most recent
    _put(cache, "tg:new")
    assert len(cache) == 50
    assert cache.get("tg:1") is None
    assert cache.get("tg:0") is not None and cache.get("tg:new") is not None


def test_expire_drops_only_expired_entries() -> None:
    clock = ManualClock()
    cache = ProfileCache(clock=clock)
    _put(cache, "tg:old")
    clock.advance(TTL.total_seconds() / 2)
    _put(cache, "tg:young")
    assert cache.expire() == 0
    clock.advance(TTL.total_seconds() / 2)
    assert cache.expire() == 1
    assert cache.get("tg:old") is None and cache.get("tg:young") is not None


def test_invalidate_removes_the_entry() -> None:
    cache = ProfileCache(clock=ManualClock())
    _put(cache, "tg:1")
    cache.invalidate("tg:1")
    assert cache.get("tg:1") is None


def test_a_read_that_started_before_a_write_is_not_stored() -> None:
    """Reader takes its token, reads the old row; a writer commits and invalidates;
    the reader's put must be refused, or the next reader would see the old profile."""
    cache = ProfileCache(clock=ManualClock())
    token = cache.token()
    old = _value("tg:1", "old")
    cache.invalidate("tg:1")  # the writer's commit happens here
    assert cache.put("tg:1", old, token) is False
    assert cache.get("tg:1") is None
    # A read that starts after the write may store what it read.
    assert cache.put("tg:1", _value("tg:1", "new"), cache.token()) is True
    cached = cache.get("tg:1")
    assert cached is not None and cached.profile.name == "new"


def test_other_users_writes_do_not_block_storing() -> None:
    cache = ProfileCache(clock=ManualClock())
    token = cache.token()
    cache.invalidate("tg:2")
    assert cache.put("tg:1", _value("tg:1"), token) is True


def test_forgotten_marks_still_refuse_old_readers() -> None:
    cache = ProfileCache(max_entries=2, clock=ManualClock())
    token = cache.token()
    cache.invalidate("tg:victim")
    for n in range(50):  # enough invalidations to make the cache drop old marks
        cache.invalidate(f"tg:{n}")
    assert cache.put("tg:victim", _value("tg:victim"), token) is False
    assert cache.put("tg:victim", _value("tg:victim"), cache.token()) is True


def test_clear_refuses_reads_that_started_before_it() -> None:
    cache = ProfileCache(clock=ManualClock())
    _put(cache, "tg:1")
    token = cache.token()
    cache.clear()
    assert len(cache) == 0
    assert cache.put("tg:1", _value("tg:1"), token) is False


def test_size_must_be_positive() -> None:
    with pytest.raises(ValueError):
        ProfileCache(max_entries=0)


def test_write_through_serves_the_written_value() -> None:
    cache = ProfileCache(clock=ManualClock())
    seq = cache.sequence()
    assert cache.write_through("tg:1", _value("tg:1", "written"), seq)
    cached = cache.get("tg:1")
    assert cached is not None and cached.profile.name == "written"


def test_a_writer_that_resumes_late_does_not_overwrite_a_newer_write() -> None:
    """W1 locks the row first (lower sequence) and commits first, but W2's task
    resumes first: W1's older value must not replace W2's."""
    cache = ProfileCache(clock=ManualClock())
    first, second = cache.sequence(), cache.sequence()
    assert cache.write_through("tg:1", _value("tg:1", "second"), second)
    assert not cache.write_through("tg:1", _value("tg:1", "first"), first)
    cached = cache.get("tg:1")
    assert cached is not None and cached.profile.name == "second"


def test_an_invalidation_beats_an_older_writer() -> None:
    cache = ProfileCache(clock=ManualClock())
    seq = cache.sequence()  # a write holding the lock ...
    cache.invalidate("tg:1")  # ... then e.g. forget commits after it and invalidates
    assert not cache.write_through("tg:1", _value("tg:1", "stale"), seq)
    assert cache.get("tg:1") is None


def test_a_reader_older_than_a_write_through_is_not_stored() -> None:
    cache = ProfileCache(clock=ManualClock())
    token = cache.token()  # reader starts, reads the row before the write commits
    assert cache.write_through("tg:1", _value("tg:1", "new"), cache.sequence())
    assert not cache.put("tg:1", _value("tg:1", "old"), token)
    cached = cache.get("tg:1")
    assert cached is not None and cached.profile.name == "new"


def test_a_writer_from_before_the_marks_were_dropped_does_not_store() -> None:
    cache = ProfileCache(max_entries=2, clock=ManualClock())
    seq = cache.sequence()
    for n in range(50):
        cache.invalidate(f"tg:{n}")
    assert not cache.write_through("tg:0", _value("tg:0"), seq)
