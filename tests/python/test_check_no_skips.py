"""scripts/check_no_skips.py, which .ci/run runs after ctest, on LastTest.log records written here:
it finds GoogleTest's and pytest's skips and fails on those not for an allowed optional tool."""
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "check_no_skips.py"

GTEST_SKIP = """1/2 Testing: PackCommand.PacksTheAlexNetLayoutFile
1/2 Test: PackCommand.PacksTheAlexNetLayoutFile
Output:
----------------------------------------------------------
[ RUN      ] PackCommand.PacksTheAlexNetLayoutFile
/w/tests/cli/pack_cli_test.cc:33: Skipped
shared data absent: /x/alexnet.npz

[  SKIPPED ] PackCommand.PacksTheAlexNetLayoutFile (0 ms)
[  SKIPPED ] 1 test, listed below:
[  SKIPPED ] PackCommand.PacksTheAlexNetLayoutFile
<end of output>
Test Pass Reason:
Skip regular expression found in output. Regex=[\\[  SKIPPED \\]]
"""
PYTEST_ALLOWED = """2/2 Testing: python_pytest
2/2 Test: python_pytest
Output:
----------------------------------------------------------
..ss
SKIPPED [4] test_kernel_tuner_real.py:47: KERNEL_TUNER_SRC is not set: no real Kernel Tuner
<end of output>
Test Passed.
"""
PYTEST_DATA = PYTEST_ALLOWED.replace(
    "<end of output>", "SKIPPED [1] conftest.py:49: /x is absent (shared data not available)\n"
    "<end of output>")


def check(tmp_path, log, shared=True):
    folder = tmp_path / "build" / "Testing" / "Temporary"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "LastTest.log").write_text("Start testing: Dec 06 05:12 UTC\n" + log)
    data = tmp_path / ("shared" if shared else "absent")
    if shared:
        data.mkdir(exist_ok=True)
    return subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "build"), str(data)],
                          capture_output=True, text=True)


def test_a_skip_with_the_data_present_fails(tmp_path):
    done = check(tmp_path, GTEST_SKIP + PYTEST_DATA)
    assert done.returncode == 1, done.stdout + done.stderr
    assert ("check_no_skips: FAIL: PackCommand.PacksTheAlexNetLayoutFile: "
            "PackCommand.PacksTheAlexNetLayoutFile: shared data absent: /x/alexnet.npz") in done.stdout
    assert "FAIL: python_pytest: conftest.py:49: /x is absent" in done.stdout
    assert "allowed: python_pytest: test_kernel_tuner_real.py:47" in done.stdout
    assert "2 test(s) skipped" in done.stderr


def test_allowed_skips_and_absent_data_pass(tmp_path):
    done = check(tmp_path, PYTEST_ALLOWED)
    assert done.returncode == 0 and "(1 allowed skips)" in done.stdout, done.stdout
    done = check(tmp_path, GTEST_SKIP + PYTEST_DATA, shared=False)
    assert done.returncode == 0 and "is absent: tests that need it may skip" in done.stdout


def test_no_log_is_an_error(tmp_path):
    (tmp_path / "shared").mkdir()
    done = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "nowhere"),
                           str(tmp_path / "shared")], capture_output=True, text=True)
    assert done.returncode == 2 and "run ctest first" in done.stderr
