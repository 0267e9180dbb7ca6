package org.jverity.cli.syntax;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The command-line syntax of one command (or of a group of options several commands share): its
 * options and positional parameters, each with the code that stores its value in a {@code T}.
 * Declared in code, not with annotations: reading annotations at run time costs a dynamic proxy
 * class per annotation type, and with the reflection around it was most of a short command's
 * start-up (see docs/benchmarks.md, "Start-up").
 *
 * <p>Parsing follows popt, as veritysetup does: options and parameters in any order, {@code
 * --name=VALUE} or {@code --name VALUE}, {@code -x VALUE} or {@code -xVALUE}, clustered short flags
 * ({@code -rv}), {@code --} ends the options, and a repeated option means the last one (a
 * repeatable option's setter adds instead). popt takes a long option's name only in full; a syntax
 * that mirrors a tool parsing with getopt_long (fsverity) or argparse (avbtool) takes any prefix
 * that picks one option too ({@link #abbreviations(List)}). Immutable once built; thread-safe.
 *
 * @param <T> what the parsed values are stored in
 */
public final class Syntax<T> {
  /**
   * One option.
   *
   * @param names its names, short first ({@code -h}, {@code --hash})
   * @param label the value's name in help ({@code ALG}), or null for a flag
   * @param help one sentence or a few
   * @param required whether the command line must give it
   * @param set stores a value ("" for a flag) in the target; may throw {@link BadValue}
   * @param file stores a file name already made a path, for a value that names a file (a config
   *     file resolves it against its own directory); null for other values
   * @param location whether the value may also be a URL ({@link Location}), which a config file
   *     takes as it is
   */
  public record Option<T>(
      List<String> names,
      String label,
      String help,
      boolean required,
      BiConsumer<T, String> set,
      BiConsumer<T, Path> file,
      boolean location) {
    public boolean takesValue() {
      return label != null;
    }

    /** The name given in messages: the longest. */
    public String name() {
      return names.getLast();
    }

    /**
     * Its name as a config file's key: the long name without dashes, or its alias in {@link
     * #KEY_ALIASES}; null for an option with no long name.
     */
    public String key() {
      if (!name().startsWith("--")) {
        return null;
      }
      String key = name().substring(2);
      return KEY_ALIASES.getOrDefault(key, key);
    }

    <U> Option<U> on(Function<U, T> part) {
      return new Option<>(
          names,
          label,
          help,
          required,
          (u, v) -> set.accept(part.apply(u), v),
          file == null ? null : (u, p) -> file.accept(part.apply(u), p),
          location);
    }
  }

  /**
   * The keys spelt otherwise than their option, by long name: in a {@code serve} section {@code
   * hash} is the hash device, so {@code --hash} is {@code hash-algorithm} there.
   */
  public static final Map<String, String> KEY_ALIASES = Map.of("hash", "hash-algorithm");

  /**
   * One positional parameter.
   *
   * @param label its name in help and messages ({@code DATA})
   * @param help one sentence or a few
   * @param min how many the command line must give: 0 or 1
   * @param many whether more than one may follow (then it is the last parameter)
   * @param set stores one value in the target; may throw {@link BadValue}
   */
  public record Parameter<T>(
      String label, String help, int min, boolean many, BiConsumer<T, String> set) {
    <U> Parameter<U> on(Function<U, T> part) {
      return new Parameter<>(label, help, min, many, (u, v) -> set.accept(part.apply(u), v));
    }
  }

  /**
   * One example of the command's use, for its manual page's EXAMPLES: a command line as a user
   * types it at a shell ({@code jverity format ...}), run as written by a test.
   *
   * @param what one sentence saying what the line does
   * @param line the shell line
   */
  public record Example(String what, String line) {}

  private final String name;
  private final String summary;
  private final List<Example> examples = new ArrayList<>();

  /**
   * The values an option takes when they are a fixed set, by {@link Option#name}: for completion.
   */
  private final Map<String, List<String>> choices = new java.util.HashMap<>();

  private final Supplier<T> factory;
  private final List<Option<T>> options = new ArrayList<>();
  private final List<Parameter<T>> parameters = new ArrayList<>();

  /** Whether a long option may be given as a prefix of its name ({@link #abbreviations(List)}). */
  private boolean abbreviated;

  /** The options its peer lacks, by {@link Option#name}: a prefix picks them last. */
  private final Set<String> added = new HashSet<>();

  private Syntax(String name, String summary, Supplier<T> factory) {
    this.name = name;
    this.summary = summary;
    this.factory = factory;
  }

  /** A command's syntax: {@code factory} makes the object its values are stored in. */
  public static <T> Syntax<T> command(String name, String summary, Supplier<T> factory) {
    return new Syntax<>(name, summary, factory);
  }

  /**
   * Says that the option declared last takes one of {@code values} (shell completion offers them);
   * the option's own setter still checks what it is given.
   */
  public Syntax<T> choices(List<String> values) {
    choices.put(options.getLast().name(), List.copyOf(values));
    return this;
  }

  /** The fixed set of values {@code o} takes, or an empty list when it takes any value. */
  public List<String> choices(Option<?> o) {
    return choices.getOrDefault(o.name(), List.of());
  }

  /**
   * Says that the value of the option declared last names a file (its setter parses the name, as
   * {@link FileName} or {@link OutputFile} do): completion offers file names after it, and a config
   * file's relative name is resolved against the config's directory first, as for {@link #file}.
   */
  public Syntax<T> namesAFile() {
    Option<T> o = options.removeLast();
    BiConsumer<T, String> set = o.set();
    options.add(
        new Option<>(
            o.names(),
            o.label(),
            o.help(),
            o.required(),
            set,
            (t, path) -> set.accept(t, path.toString()),
            o.location()));
    return this;
  }

  /** Adds an example of the command's use ({@link Example}). */
  public Syntax<T> example(String what, String line) {
    examples.add(new Example(what, line));
    return this;
  }

  /** Options shared by several commands, for {@link #include}. */
  public static <T> Syntax<T> group() {
    return new Syntax<>(null, null, null);
  }

  /** A flag: {@code names} are comma-separated ({@code "-r, --recursive"}). */
  public Syntax<T> flag(String names, String help, Consumer<T> set) {
    return add(new Option<>(split(names), null, help, false, (t, v) -> set.accept(t), null, false));
  }

  /** An option with a value, named {@code label} in help. */
  public Syntax<T> option(String names, String label, String help, BiConsumer<T, String> set) {
    return add(new Option<>(split(names), label, help, false, set, null, false));
  }

  /**
   * An option whose value names a file ({@link FileName}): relative to the working directory on the
   * command line, to the file's own directory in a config file ({@link #setKey}).
   */
  public Syntax<T> file(String names, String label, String help, BiConsumer<T, Path> set) {
    return add(
        new Option<>(
            split(names),
            label,
            help,
            false,
            (t, v) -> set.accept(t, FileName.parse(v)),
            set,
            false));
  }

  /**
   * An option whose value names a device: a file name, resolved as {@link #file}'s, or a URL
   * ({@link Location}), taken as it is.
   */
  public Syntax<T> location(String names, String label, String help, BiConsumer<T, String> set) {
    return add(
        new Option<>(
            split(names),
            label,
            help,
            false,
            (t, v) -> set.accept(t, Location.parse(v)),
            (t, p) -> set.accept(t, p.toString()),
            true));
  }

  /** An option the command line must give. */
  public Syntax<T> requiredOption(
      String names, String label, String help, BiConsumer<T, String> set) {
    return add(new Option<>(split(names), label, help, true, set, null, false));
  }

  /** The next positional parameter, which must be given. */
  public Syntax<T> parameter(String label, String help, BiConsumer<T, String> set) {
    return add(new Parameter<>(label, help, 1, false, set));
  }

  /** The next positional parameter, which may be left out. */
  public Syntax<T> optionalParameter(String label, String help, BiConsumer<T, String> set) {
    return add(new Parameter<>(label, help, 0, false, set));
  }

  /** The last positional parameters: one or more, each stored in turn. */
  public Syntax<T> parameters(String label, String help, BiConsumer<T, String> set) {
    return add(new Parameter<>(label, help, 1, true, set));
  }

  /**
   * Adds a group's options, storing their values in the part of {@code T} that {@code part} picks.
   */
  public <G> Syntax<T> include(Syntax<G> group, Function<T, G> part) {
    group.options.forEach(o -> add(o.on(part)));
    choices.putAll(group.choices);
    group.parameters.forEach(p -> add(p.on(part)));
    return this;
  }

  /**
   * Lets a long option be given as any prefix of one of its names that picks one option ({@code
   * --hash=sha512} for {@code --hash-alg}), as getopt_long and argparse take them: for the commands
   * that mirror fsverity's and avbtool's, whose own test suites and users' scripts abbreviate. An
   * exact name always wins; a prefix several options share is refused, naming them. {@code added}
   * are this syntax's options that the peer lacks (jverity's own): a prefix picks among the peer's
   * options first, and among these and the global options only when none of the peer's has it, so
   * that an abbreviation the peer takes means here what it means there ({@code --s=SALT} stays
   * {@code --salt} beside {@code --s3-endpoint}). Without this call (veritysetup's commands and
   * jverity's own, which follow veritysetup) a name must be given in full, as popt requires.
   * Config-file keys are never abbreviated ({@link #setKey}).
   */
  public Syntax<T> abbreviations(List<String> added) {
    for (String n : added) {
      Option<T> o = option(n);
      if (o == null) {
        throw new IllegalStateException(name + ": " + n + " is not an option");
      }
      this.added.add(o.name());
    }
    abbreviated = true;
    return this;
  }

  /** {@link #abbreviations(List)} for a syntax whose options are all its peer's. */
  public Syntax<T> abbreviations() {
    return abbreviations(List.of());
  }

  private Syntax<T> add(Option<T> o) {
    for (String n : o.names()) {
      if (option(n) != null) {
        throw new IllegalStateException(name + ": option " + n + " declared twice");
      }
    }
    options.add(o);
    return this;
  }

  private Syntax<T> add(Parameter<T> p) {
    if (!parameters.isEmpty() && parameters.getLast().many()) {
      throw new IllegalStateException(
          name + ": " + p.label() + " after " + parameters.getLast().label() + "...");
    }
    parameters.add(p);
    return this;
  }

  public String name() {
    return name;
  }

  public String summary() {
    return summary;
  }

  public List<Example> examples() {
    return List.copyOf(examples);
  }

  public List<Option<T>> options() {
    return List.copyOf(options);
  }

  public List<Parameter<T>> parameters() {
    return List.copyOf(parameters);
  }

  /** The option one of whose names is {@code n}, or null. */
  public Option<T> option(String n) {
    for (Option<T> o : options) {
      if (o.names().contains(n)) {
        return o;
      }
    }
    return null;
  }

  /** Whether a long option may be given as a prefix of its name ({@link #abbreviations(List)}). */
  public boolean abbreviated() {
    return abbreviated;
  }

  /** The options its peer lacks ({@link #abbreviations(List)}), by {@link Option#name}. */
  public Set<String> added() {
    return Set.copyOf(added);
  }

  /** The names messages give its options ({@link Option#name}), in declaration order. */
  public List<String> names() {
    return options.stream().map(Option::name).toList();
  }

  /** The keys of this syntax's options, in declaration order ({@link Option#key}). */
  public List<String> keys() {
    List<String> keys = new ArrayList<>();
    for (Option<T> o : options) {
      if (o.key() != null) {
        keys.add(o.key());
      }
    }
    return List.copyOf(keys);
  }

  /**
   * Stores {@code key = value}, as a config file gives it, in {@code target}: what the option
   * {@code key} names would store. A flag's value is {@link #truth}; a file name is resolved
   * against {@code base}.
   *
   * @return false when no option has that key
   * @throws BadValue when the value is refused, naming the key and the value
   */
  public boolean setKey(T target, String key, String value, Path base) {
    for (Option<T> o : options) {
      if (key.equals(o.key())) {
        try {
          if (!o.takesValue()) {
            if (truth(value)) {
              o.set().accept(target, "");
            }
          } else if (o.location() && Location.isUrl(value)) {
            o.set().accept(target, value); // checked by the option's own Location.parse
          } else if (o.file() != null) {
            o.file().accept(target, base.resolve(FileName.parse(value)));
          } else {
            o.set().accept(target, value);
          }
        } catch (BadValue e) {
          throw e.of(key, value);
        }
        return true;
      }
    }
    return false;
  }

  /**
   * A flag's value in a config file: true/yes/on/1 or false/no/off/0, as nbd-server and systemd
   * accept.
   */
  public static boolean truth(String text) {
    return switch (text.toLowerCase(Locale.ROOT)) {
      case "true", "yes", "on", "1" -> true;
      case "false", "no", "off", "0" -> false;
      default -> throw new BadValue("true or false");
    };
  }

  /**
   * A check's message with the names in its subject (the text before the first ": ", which names
   * what is refused; the value given follows it) spelt as options ({@code --tls}) or as keys
   * ({@code tls}): a check of several values is written once, and each front end names them as they
   * were given to it.
   */
  public String spelt(String message, boolean asOptions) {
    int colon = message.indexOf(": ");
    String subject = colon < 0 ? message : message.substring(0, colon);
    List<String> keys = new ArrayList<>();
    for (Option<T> o : options) {
      if (o.name().startsWith("--")) {
        keys.add(o.name().substring(2));
      }
    }
    keys.sort(Comparator.comparingInt(String::length).reversed());
    for (String key : keys) {
      Pattern p =
          Pattern.compile(
              "(?<![\\w-])" + (asOptions ? "" : "--") + Pattern.quote(key) + "(?![\\w-])");
      subject =
          p.matcher(subject).replaceAll(Matcher.quoteReplacement(asOptions ? "--" + key : key));
    }
    return colon < 0 ? subject : subject + message.substring(colon);
  }

  /**
   * A parsed command line: the target holding the values, and the options given (by {@link
   * Option#name}).
   */
  public record Parsed<T>(T target, Set<String> given) {}

  /**
   * Parses {@code args} (the command name already removed) into a new {@code T}; the options of
   * {@code shared} (the global ones) are accepted too, their values stored in {@code sharedTarget}.
   *
   * @throws UsageException when the command line does not fit this syntax
   * @throws BadValue when a value is refused (the parser adds the option's name and the value)
   */
  public <G> Parsed<T> parse(List<String> args, Syntax<G> shared, G sharedTarget) {
    T target = factory.get();
    Set<String> given = new HashSet<>();
    List<String> positional =
        walk(args, shared, sharedTarget, target, (o, value) -> o.store(value, given), null);
    for (Option<T> o : options) {
      if (o.required() && !given.contains(o.name())) {
        throw new UsageException("missing required option '" + o.name() + "=" + o.label() + "'");
      }
    }
    storeParameters(positional, target);
    return new Parsed<>(target, Set.copyOf(given));
  }

  /**
   * {@code args} with every abbreviated long option spelt in full ({@code --hash=sha512} as {@code
   * --hash-alg=sha512}), argument for argument: what {@link #parse} takes them for, for the looks
   * at a command line before it is parsed ({@code --help}, {@code --json}, the exit-code options).
   * A command line that does not parse comes back as it is, and parsing says what is wrong.
   */
  public List<String> spelledOut(List<String> args, Syntax<?> shared) {
    if (!abbreviated) {
      return args;
    }
    List<String> spelt = new ArrayList<>();
    try {
      walk(args, shared, null, null, (o, value) -> {}, spelt);
    } catch (UsageException e) {
      return args;
    }
    return List.copyOf(spelt);
  }

  /** What a walk over a command line does with each option it finds. */
  private interface Found {
    void option(Bound<?> o, String value);
  }

  /**
   * Reads {@code args} in order, giving each option and its value ("" for a flag) to {@code found};
   * returns the positional arguments. When {@code spelt} is not null, each argument is added to it
   * as {@link #spelledOut} gives it.
   */
  private <G> List<String> walk(
      List<String> args,
      Syntax<G> shared,
      G sharedTarget,
      T target,
      Found found,
      List<String> spelt) {
    List<String> positional = new ArrayList<>();
    List<String> out = spelt == null ? new ArrayList<>() : spelt;
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (a.equals("--")) {
        positional.addAll(args.subList(i + 1, args.size()));
        out.addAll(args.subList(i, args.size()));
        break;
      }
      if (a.startsWith("--")) {
        int eq = a.indexOf('=');
        String n = eq < 0 ? a : a.substring(0, eq);
        Bound<?> o = known(n, a, shared, sharedTarget, target);
        out.add(o.option().names().contains(n) ? a : o.option().name() + a.substring(n.length()));
        if (!o.option().takesValue()) {
          if (eq >= 0) {
            throw new UsageException(
                "option '" + o.option().name() + "' takes no value: '" + a + "'");
          }
          found.option(o, "");
        } else if (eq >= 0) {
          found.option(o, a.substring(eq + 1));
        } else {
          found.option(o, value(args, ++i, o.option()));
          out.add(args.get(i));
        }
      } else if (a.startsWith("-") && a.length() > 1) {
        out.add(a);
        for (int j = 1; j < a.length(); j++) { // a cluster of short options: -rv, -s00
          Bound<?> o = known("-" + a.charAt(j), a, shared, sharedTarget, target);
          if (!o.option().takesValue()) {
            found.option(o, "");
          } else if (j + 1 < a.length()) {
            found.option(o, a.substring(j + 1));
            break;
          } else {
            found.option(o, value(args, ++i, o.option()));
            out.add(args.get(i));
            break;
          }
        }
      } else {
        positional.add(a);
        out.add(a);
      }
    }
    return positional;
  }

  /** An option and the object its value goes to. */
  private record Bound<X>(Option<X> option, X target) {
    void store(String value, Set<String> given) {
      try {
        option.set().accept(target, value);
      } catch (BadValue e) {
        throw e.of(option.name(), value);
      }
      given.add(option.name());
    }
  }

  /**
   * The option {@code n} names: by one of its names, among this syntax's options and then {@code
   * shared}'s, or, with {@link #abbreviations(List)}, by a prefix of a long name that one option
   * has.
   */
  private <G> Bound<?> known(String n, String arg, Syntax<G> shared, G sharedTarget, T target) {
    Option<T> o = option(n);
    if (o != null) {
      return new Bound<>(o, target);
    }
    Option<G> g = shared.option(n);
    if (g != null) {
      return new Bound<>(g, sharedTarget);
    }
    if (abbreviated && n.startsWith("--") && n.length() > 2) {
      List<Bound<?>> peers = new ArrayList<>();
      List<Bound<?>> others = new ArrayList<>();
      for (Option<T> c : options) {
        if (startsWith(c, n)) {
          (added.contains(c.name()) ? others : peers).add(new Bound<>(c, target));
        }
      }
      for (Option<G> c : shared.options) {
        if (startsWith(c, n)) {
          others.add(new Bound<>(c, sharedTarget));
        }
      }
      List<Bound<?>> picked = peers.isEmpty() ? others : peers;
      if (picked.size() == 1) {
        return picked.getFirst();
      }
      if (picked.size() > 1) {
        List<String> names = new ArrayList<>();
        picked.forEach(b -> names.add(b.option().name()));
        throw new UsageException(
            "option '" + n + "' is ambiguous; possibilities: " + String.join(", ", names));
      }
    }
    throw new UsageException("unknown option '" + (arg.startsWith("--") ? n : arg) + "'");
  }

  /** Whether one of {@code o}'s long names starts with {@code prefix}. */
  private static boolean startsWith(Option<?> o, String prefix) {
    for (String name : o.names()) {
      if (name.startsWith("--") && name.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  private static String value(List<String> args, int i, Option<?> o) {
    if (i >= args.size()) {
      throw new UsageException("option '" + o.name() + "' needs a value (" + o.label() + ")");
    }
    return args.get(i);
  }

  private void storeParameters(List<String> values, T target) {
    int p = 0;
    for (int i = 0; i < values.size(); i++) {
      if (p >= parameters.size()) {
        throw new UsageException(
            "unexpected argument"
                + (values.size() - i > 1 ? "s" : "")
                + " '"
                + String.join("', '", values.subList(i, values.size()))
                + "' ("
                + name
                + " takes "
                + takes()
                + ")");
      }
      Parameter<T> param = parameters.get(p);
      try {
        param.set().accept(target, values.get(i));
      } catch (BadValue e) {
        throw e.of(param.label(), values.get(i));
      }
      if (!param.many()) {
        p++;
      } else if (i == values.size() - 1) {
        p++; // the last of them
      }
    }
    List<String> missing = new ArrayList<>();
    for (; p < parameters.size(); p++) {
      if (parameters.get(p).min() > 0) {
        missing.add("'" + parameters.get(p).label() + "'");
      }
    }
    if (!missing.isEmpty()) {
      throw new UsageException(
          "missing required parameter"
              + (missing.size() > 1 ? "s" : "")
              + " "
              + String.join(", ", missing));
    }
  }

  /** The parameters as help's usage line names them: {@code DATA HASH [ROOT_HASH]}. */
  private String takes() {
    if (parameters.isEmpty()) {
      return "no arguments";
    }
    List<String> words = new ArrayList<>();
    for (Parameter<T> p : parameters) {
      String w = p.label() + (p.many() ? "..." : "");
      words.add(p.min() == 0 ? "[" + w + "]" : w);
    }
    return String.join(" ", words);
  }

  private static List<String> split(String names) {
    return List.of(names.split(",\\s*"));
  }

  /** Adds {@code v} to {@code list}, made when null: for repeatable options and parameters. */
  public static <V> List<V> append(List<V> list, V v) {
    List<V> l = list == null ? new ArrayList<>() : list;
    l.add(v);
    return l;
  }
}
