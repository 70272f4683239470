"""The retry policy's arithmetic: which errors, how long."""
import email.utils
import unittest

import support  # noqa: F401  (puts the package on the path)

from persona_refine import ApiError, APIConnectionError, APITimeoutError
from persona_refine._retry import is_retryable, parse_retry_after, retry_delay


class Policy(unittest.TestCase):
    def test_which_failures_are_tried_again(self) -> None:
        self.assertTrue(is_retryable(APIConnectionError("reset"), False))
        self.assertFalse(is_retryable(APITimeoutError("late"), True))
        for status in (429, 502, 503, 504):
            self.assertTrue(is_retryable(ApiError(status, "x"), False), status)
        for status in (400, 401, 403, 404, 412, 422, 500):
            self.assertFalse(is_retryable(ApiError(status, "x"), True), status)
        self.assertTrue(is_retryable(ApiError(409, "x"), True))
        self.assertFalse(is_retryable(ApiError(409, "x"), False))

    def test_backoff_doubles_with_equal_jitter_up_to_8_s(self) -> None:
        self.assertEqual([retry_delay(n, None, lambda: 0.0) for n in range(6)], [0.25, 0.5, 1.0, 2.0, 4.0, 4.0])
        self.assertEqual([retry_delay(n, None, lambda: 1.0) for n in range(6)], [0.5, 1.0, 2.0, 4.0, 8.0, 8.0])
        self.assertEqual(retry_delay(50, None, lambda: 1.0), 8.0)

    def test_retry_after_is_a_floor(self) -> None:
        self.assertEqual(retry_delay(0, 3.0, lambda: 1.0), 3.0)
        self.assertEqual(retry_delay(3, 1.0, lambda: 1.0), 4.0)

    def test_reads_retry_after_as_seconds_or_a_date(self) -> None:
        self.assertEqual(parse_retry_after("2"), 2.0)
        self.assertEqual(parse_retry_after(" 1.5 "), 1.5)
        self.assertEqual(parse_retry_after(email.utils.formatdate(1_000_030, usegmt=True), now=1_000_000), 30.0)
        self.assertEqual(parse_retry_after(email.utils.formatdate(999_000, usegmt=True), now=1_000_000), 0.0)
        for value in (None, "", "soon", "-1"):
            self.assertIsNone(parse_retry_after(value), value)


if __name__ == "__main__":
    unittest.main()
