package com.example.classloading;

/** A meter reading: a POJO of the user's jar, which no Weir process has on its class path. */
public class Reading {
  public String sensor;
  public int value;

  public Reading() {}

  public Reading(String sensor, int value) {
    this.sensor = sensor;
    this.value = value;
  }

  @Override
  public String toString() {
    return sensor + "=" + value;
  }
}
