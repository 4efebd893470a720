"""The one Parquet sink for every table: shards, finalize, and a real Beam run."""

from __future__ import annotations

import pathlib

import apache_beam as beam
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.testing.util import assert_that, equal_to

from ragbeam.transforms.write import parquet, shards
from ragbeam.transforms.write.parquet import WriteTables, finalize_tables
from ragbeam.transforms.write.shards import ParquetShard, temp_dir

ITEMS = pa.schema([("id", pa.string()), ("n", pa.int64()),
                   ("tags", pa.list_(pa.string()))])
NOTES = pa.schema([("text", pa.string())])
SCHEMAS = {"items": ITEMS, "notes": NOTES}


def _items(count: int) -> list[dict]:
    return [{"id": f"i{k:04d}", "n": k, "tags": [str(k % 3)] * (k % 2)} for k in range(count)]


def _read(out: pathlib.Path, table: str) -> tuple[list[str], pa.Table]:
    files = sorted(p.name for p in (out / table).glob("*.parquet"))
    return files, pa.concat_tables([pq.read_table(out / table / f) for f in files])


def test_shard_round_trips_rows_in_several_row_groups(tmp_path, monkeypatch):
    monkeypatch.setattr(shards, "ROWS_PER_BATCH", 7)
    monkeypatch.setattr(shards, "ROW_GROUP_BYTES", 1)  # a row group per batch
    shard = ParquetShard(str(tmp_path / "s.parquet"), ITEMS)
    rows = _items(30)
    for row in rows:
        shard.write(row)
    assert shard.close() == str(tmp_path / "s.parquet")
    assert shard.rows_written == 30
    file = pq.ParquetFile(tmp_path / "s.parquet")
    assert file.metadata.num_row_groups == 5  # 7 + 7 + 7 + 7 + 2
    assert file.schema_arrow == ITEMS
    assert file.read().to_pylist() == rows


def test_a_shard_of_large_rows_holds_a_bounded_number_of_bytes(tmp_path, monkeypatch):
    """Rows that carry whole documents become Arrow (and row groups) by size, not
    only by count, so an open shard never holds more than about BATCH_BYTES of rows."""
    monkeypatch.setattr(shards, "BATCH_BYTES", 10_000)
    monkeypatch.setattr(shards, "ROW_GROUP_BYTES", 1)
    shard = ParquetShard(str(tmp_path / "s.parquet"), NOTES)
    rows = [{"text": str(k) * 4000} for k in range(10)]  # 4 kB each
    for row in rows:
        shard.write(row)
    shard.close()
    file = pq.ParquetFile(tmp_path / "s.parquet")
    assert file.metadata.num_row_groups == 4  # 3 + 3 + 3 + 1 rows
    assert file.read().to_pylist() == rows


def test_finalize_renames_every_shard_and_gives_an_empty_table_its_schema(tmp_path):
    out = str(tmp_path)
    shards = []
    for k in range(3):
        shard = ParquetShard(f"{temp_dir(out)}/items-{k}.parquet", ITEMS)
        for row in _items(5):
            shard.write(row)
        shards.append(("items", shard.close()))
    finals = finalize_tables(out, SCHEMAS, shards)
    assert [pathlib.Path(f).name for f in finals] == [
        "part-00000-of-00003.parquet", "part-00001-of-00003.parquet",
        "part-00002-of-00003.parquet", "part-00000-of-00001.parquet"]
    files, items = _read(tmp_path, "items")
    assert len(files) == 3 and items.num_rows == 15
    files, notes = _read(tmp_path, "notes")
    assert files == ["part-00000-of-00001.parquet"]
    assert notes.num_rows == 0 and notes.schema == NOTES
    assert not pathlib.Path(temp_dir(out)).exists()


def test_finalize_can_be_retried_after_it_renamed_some_shards(tmp_path):
    out = str(tmp_path)
    shards = []
    for k in range(2):
        shard = ParquetShard(f"{temp_dir(out)}/items-{k}.parquet", ITEMS)
        shard.write(_items(1)[0])
        shards.append(("items", shard.close()))
    (tmp_path / "items").mkdir()
    # An earlier attempt renamed the first shard, then died.
    pathlib.Path(shards[0][1]).rename(tmp_path / "items" / "part-00000-of-00002.parquet")
    finalize_tables(out, {"items": ITEMS}, shards)
    files, items = _read(tmp_path, "items")
    assert files == ["part-00000-of-00002.parquet", "part-00001-of-00002.parquet"]
    assert items.num_rows == 2


def _shards(out: str, table: str, count: int) -> list[tuple[str, str]]:
    shards = []
    for k in range(count):
        shard = ParquetShard(f"{temp_dir(out)}/{table}-{k:04d}.parquet", ITEMS)
        shard.write(_items(k + 1)[k])
        shards.append((table, shard.close()))
    return shards


def test_finalize_renames_many_shards_in_parallel_batches(tmp_path, monkeypatch):
    out = str(tmp_path)
    shards = _shards(out, "items", 120)
    batches: list[int] = []
    real = parquet.FileSystems.rename

    def rename(sources, destinations):
        batches.append(len(sources))
        return real(sources, destinations)

    monkeypatch.setattr(parquet.FileSystems, "rename", rename)
    monkeypatch.setattr(parquet.FileSystems, "get_chunk_size", lambda path: 50)
    finalize_tables(out, {"items": ITEMS}, shards)
    assert sorted(batches) == [20, 50, 50]
    files, items = _read(tmp_path, "items")
    assert len(files) == 120 and sorted(items.column("n").to_pylist()) == list(range(120))


def test_finalize_redoes_a_rename_left_halfway(tmp_path):
    """An object store renames by copy then delete: a finalize that died between the
    two leaves a shard at both names; the retry renames it again."""
    out = str(tmp_path)
    shards = _shards(out, "items", 2)
    (tmp_path / "items").mkdir()
    half = tmp_path / "items" / "part-00001-of-00002.parquet"
    half.write_bytes(pathlib.Path(shards[1][1]).read_bytes()[:10])  # a copy cut short
    finalize_tables(out, {"items": ITEMS}, shards)
    files, items = _read(tmp_path, "items")
    assert files == ["part-00000-of-00002.parquet", "part-00001-of-00002.parquet"]
    assert items.column("n").to_pylist() == [0, 1]
    assert not pathlib.Path(temp_dir(out)).exists()


def test_finalize_fails_loudly_when_a_committed_shard_is_lost(tmp_path):
    with pytest.raises(Exception, match="Rename"):
        finalize_tables(str(tmp_path), {"items": ITEMS},
                        [("items", f"{temp_dir(str(tmp_path))}/items-gone.parquet")])


def _all_true(flags: list[bool]) -> None:
    assert len(flags) >= 2 and all(flags), flags


@pytest.mark.parametrize("mode", [
    "in_memory",
    pytest.param("multi_processing", marks=pytest.mark.slow),  # another running mode
])
def test_beam_run_writes_every_table_once(tmp_path, mode):
    rows = _items(2500)
    options = PipelineOptions(["--direct_running_mode", mode, "--direct_num_workers", "2"])
    with beam.Pipeline(options=options) as p:
        items = p | "Items" >> beam.Create(rows) | beam.Reshuffle()
        notes = p | "Notes" >> beam.Create([])
        written = {"items": items, "notes": notes} | WriteTables(
            str(tmp_path), SCHEMAS, {"items": lambda row: ["even"] if row["n"] % 2 == 0 else []})
        # The output: the final names, once they all exist, and the committed rows' counts,
        # exactly once whatever the bundles and workers (nothing is read back).
        assert_that(written | beam.FlatMap(lambda w: [pathlib.Path(p).is_file() for paths
                                                      in w.files.values() for p in paths]),
                    _all_true, label="files exist")
        assert_that(written | beam.Map(lambda w: {t: dict(c) for t, c in w.counts.items()}),
                    equal_to([{"items": {"rows": 2500, "even": 1250}, "notes": {}}]),
                    label="counts")
    _, items_table = _read(tmp_path, "items")
    assert sorted(items_table.to_pylist(), key=lambda r: r["id"]) == rows
    _, notes_table = _read(tmp_path, "notes")
    assert notes_table.num_rows == 0
    assert not (tmp_path / "_temporary").exists()


def test_tables_must_match_the_schemas(tmp_path):
    with pytest.raises(ValueError, match="schemas"), beam.Pipeline() as p:
        _ = {"items": p | beam.Create([])} | WriteTables(str(tmp_path), SCHEMAS)
