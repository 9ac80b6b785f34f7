import unittest

from mathops.ops import Counter, add, classify, divide, record


class TestOps(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(1, 2), 3)

    def test_classify(self):
        result = classify(-5)
        self.assertEqual(result, "negative")
        self.assertEqual(classify(0), "zero")
        self.assertEqual(classify(7), "positive")

    def test_divide(self):
        assert divide(6, 3) == 2

    def test_divide_by_zero(self):
        with self.assertRaises(ZeroDivisionError):
            divide(1, 0)

    def test_record(self):
        self.assertIsNone(record(3))

    def test_counter(self):
        counter = Counter()
        self.assertEqual(counter.increment(), 1)
