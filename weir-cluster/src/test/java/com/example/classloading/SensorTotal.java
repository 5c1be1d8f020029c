package com.example.classloading;

/** What {@link SensorTotalsJob} keeps per sensor in keyed state: a POJO of the user's jar. */
public class SensorTotal {
  public String sensor;
  public int count;
  public long sum;

  public SensorTotal() {}
}
