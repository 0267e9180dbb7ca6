package org.jverity.ddi;

import java.util.Comparator;

/**
 * Partition labels compared as versions, the way systemd-dissect picks the newest of A/B partitions
 * ({@code strverscmp_improved}): runs of digits compare as numbers, other characters one by one, so
 * {@code root-2.10} is newer than {@code root-2.9}. Stateless.
 */
final class VersionOrder implements Comparator<String> {
  static final VersionOrder INSTANCE = new VersionOrder();

  private VersionOrder() {}

  @Override
  public int compare(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      char x = a.charAt(i);
      char y = b.charAt(j);
      if (Character.isDigit(x) && Character.isDigit(y)) {
        int ei = digitsEnd(a, i);
        int ej = digitsEnd(b, j);
        String da = stripZeros(a.substring(i, ei));
        String db = stripZeros(b.substring(j, ej));
        int c =
            da.length() != db.length()
                ? Integer.compare(da.length(), db.length())
                : da.compareTo(db);
        if (c != 0) {
          return c;
        }
        i = ei;
        j = ej;
      } else {
        if (x != y) {
          return Character.compare(x, y);
        }
        i++;
        j++;
      }
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }

  private static int digitsEnd(String s, int from) {
    int e = from;
    while (e < s.length() && Character.isDigit(s.charAt(e))) {
      e++;
    }
    return e;
  }

  private static String stripZeros(String digits) {
    int k = 0;
    while (k < digits.length() - 1 && digits.charAt(k) == '0') {
      k++;
    }
    return digits.substring(k);
  }
}
